//! Step 1 of charging (charge.rs): recording intents. Requests that arrive together are
//! recorded together (coffer_store::Batches): one transaction, and one insert for all their
//! payments, each with its own supporter and Idempotency-Key. Under load the intent is, with
//! the outcome (outcome.rs), one of the two writes every payment makes.

use std::sync::Arc;

use coffer_events::{TraceContext, append};
use coffer_http::idempotency::{self, Reservation};
use coffer_http::{ApiError, Failure, internal};
use coffer_store::Db;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde_json::{Value, json};

use super::{Asker, Parts};
use crate::payments::record::Payment;
use crate::payments::store;
use crate::supporters::domain::Supporter;

/// Batches of intents recorded at a time, and intents in one batch at most.
pub(crate) const AT_ONCE: usize = 2;
pub(crate) const MAX_BATCH: usize = 64;

/// A payment to record pending, its call about to begin.
#[derive(Clone)]
pub(crate) struct Reserving {
    pub state: Parts,
    pub asker: Asker,
    /// The request's hash, which a later request under the same key must match.
    pub hash: String,
    pub trace: TraceContext,
    pub payment: Payment,
    /// A supporter the payment creates.
    pub supporter: Option<Supporter>,
    /// A supporter the payment names, which must be the organisation's.
    pub named_supporter: Option<String>,
}

/// What each intent became: recorded, its key held in progress; or its key was taken by
/// another request meanwhile, whose answer the caller gives.
pub(crate) enum Intended {
    Fresh(Box<Payment>),
    Taken,
}

pub(crate) type Reserved = Result<Intended, ApiError>;

/// What a key in progress shows a retry: the payment its first request recorded.
fn marker(payment: &Payment) -> Value {
    json!({ "payment_uuid": payment.uuid })
}

/// Records the intent with whatever others arrive meanwhile, under its Idempotency-Key:
/// a key used before is answered as its first request was (coffer_http's `idempotency`).
pub(crate) async fn reserve(item: Reserving) -> Result<Reservation<Payment>, ApiError> {
    let (state, asker, hash) = (item.state.clone(), item.asker.clone(), item.hash.clone());
    let earlier = || {
        idempotency::earlier(
            &state.store,
            state.clock.as_ref(),
            &asker.client_id,
            &asker.key,
            &hash,
        )
    };
    if let Some(found) = earlier().await? {
        return Ok(found);
    }
    let intended = state
        .intents
        .submit(item)
        .await
        .unwrap_or_else(|| Err(ApiError::internal("recording the intent was cancelled")))?;
    match intended {
        Intended::Fresh(payment) => Ok(Reservation::Fresh(*payment)),
        Intended::Taken => earlier().await?.ok_or_else(|| {
            ApiError::conflict("A request with this Idempotency-Key is in progress")
        }),
    }
}

/// Records a batch in one transaction; if that fails (a named supporter that is not the
/// organisation's, a key another request took meanwhile), each on its own, so one intent
/// that cannot be recorded never holds back the others.
pub(crate) async fn reserve_batch(batch: Vec<Reserving>) -> Vec<Reserved> {
    let Some(state) = batch.first().map(|r| r.state.clone()) else {
        return Vec::new();
    };
    let now_ms = state.clock.unix_ms();
    let batch = Arc::new(batch);
    if batch.len() > 1 {
        let shared = Arc::clone(&batch);
        let written = state
            .store
            .write(move |tx| apply_all(tx, now_ms, &shared))
            .await;
        // The error itself is not made into an answer here: each intent alone gives its
        // own, and an internal one logs as it is made.
        if let Ok(payments) = written {
            return payments
                .into_iter()
                .map(|p| Ok(Intended::Fresh(Box::new(p))))
                .collect();
        }
    }
    let mut each = Vec::with_capacity(batch.len());
    for item in batch.iter() {
        let one = Arc::new(vec![item.clone()]);
        let written = state
            .store
            .write(move |tx| apply_all(tx, now_ms, &one))
            .await;
        each.push(match written {
            Ok(mut payments) => payments
                .pop()
                .map(|p| Intended::Fresh(Box::new(p)))
                .ok_or_else(|| ApiError::internal("an intent went unrecorded")),
            Err(Failure::Db(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _))) => {
                Ok(Intended::Taken)
            }
            Err(other) => Err(other.into()),
        });
    }
    each
}

/// The batch in one transaction: each intent's supporter and key, then every payment in
/// one insert.
fn apply_all(tx: &mut Db<'_>, now_ms: i64, batch: &[Reserving]) -> Result<Vec<Payment>, Failure> {
    let mut payments = Vec::with_capacity(batch.len());
    for item in batch {
        let payment = attach(
            tx,
            &item.state,
            item.payment.clone(),
            item.supporter.as_ref(),
            item.named_supporter.as_deref(),
            &item.trace,
        )?;
        let asker = &item.asker;
        idempotency::hold(
            tx,
            now_ms,
            &asker.client_id,
            &asker.key,
            &item.hash,
            &marker(&payment),
        )?;
        payments.push(payment);
    }
    store::insert_all(tx, &payments)?;
    Ok(payments)
}

/// The intent's supporter: the one it names, which must be the organisation's, or the one
/// it creates, recorded and announced. The payment itself is the caller's to insert.
fn attach(
    tx: &mut Db<'_>,
    state: &Parts,
    mut payment: Payment,
    supporter: Option<&Supporter>,
    named_supporter: Option<&str>,
    trace: &TraceContext,
) -> Result<Payment, Failure> {
    if let Some(named) = named_supporter {
        let found = crate::supporters::store::find(tx, named)?
            .filter(|s| s.organisation_uuid == payment.organisation_uuid)
            .ok_or_else(|| Failure::from(ApiError::not_found("Supporter")))?;
        payment.supporter_uuid = Some(found.uuid);
    }
    if let Some(s) = supporter {
        crate::supporters::store::insert(tx, s)?;
        let event = state.outbox.event(
            &coffer_events::catalogue::SUPPORTER_CREATED,
            s.uuid.parse().map_err(internal)?,
            payment.organisation_uuid.parse().ok(),
            None,
            serde_json::to_value(s).map_err(internal)?,
        );
        append(tx, &[event], Some(trace))?;
    }
    Ok(payment)
}
