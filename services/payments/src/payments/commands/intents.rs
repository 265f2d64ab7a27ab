//! Step 1 of charging (charge.rs): recording intents. Requests that arrive together are
//! recorded together (coffer_store::Batches): one transaction, and one insert for all their
//! payments, each with its own supporter and Idempotency-Key. Under load the intent is, with
//! the outcome (outcome.rs), one of the two writes every payment makes.

use std::collections::HashSet;
use std::sync::Arc;

use coffer_events::{TraceContext, append};
use coffer_http::idempotency::{self, Reservation};
use coffer_http::{Failure, internal};
use coffer_store::Db;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde_json::{Value, json};

use super::ChargeBatches;
use crate::command_kit::{Asker, Parts};
use crate::error::PaymentsError;
use crate::shared::record::Payment;
use crate::shared::store as record;
use crate::shared::supporter::Supporter;

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

pub(crate) type Reserved = Result<Intended, PaymentsError>;

/// What a key in progress shows a retry: the payment its first request recorded.
pub(crate) fn marker(payment: &Payment) -> Value {
    json!({ "payment_uuid": payment.uuid })
}

/// Records the intent with whatever others arrive meanwhile, under its Idempotency-Key:
/// a key used before is answered as its first request was (coffer_http's `idempotency`).
pub(crate) async fn reserve(
    batches: &ChargeBatches,
    item: Reserving,
) -> Result<Reservation<Payment>, PaymentsError> {
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
    let intended = batches.intents.submit(item).await.unwrap_or_else(|| {
        Err(PaymentsError::internal(
            "recording the intent was cancelled",
        ))
    })?;
    match intended {
        Intended::Fresh(payment) => Ok(Reservation::Fresh(*payment)),
        Intended::Taken => earlier().await?.ok_or_else(|| {
            PaymentsError::conflict("A request with this Idempotency-Key is in progress")
        }),
    }
}

/// Records a batch. A key's second request in the batch is answered as taken (it waits
/// for the first's answer, as any retry does); the others are recorded in the order of
/// their keys, so that two transactions holding the same keys wait for each other and
/// never deadlock.
pub(crate) async fn reserve_batch(batch: Vec<Reserving>) -> Vec<Reserved> {
    let Some(state) = batch.first().map(|r| r.state.clone()) else {
        return Vec::new();
    };
    let now_ms = state.clock.unix_ms();
    let mut answers: Vec<Option<Reserved>> = batch.iter().map(|_| None).collect();
    let mut seen = HashSet::new();
    let mut firsts = Vec::with_capacity(batch.len());
    for (at, item) in batch.into_iter().enumerate() {
        match &item.asker.key.0 {
            Some(key) if !seen.insert((item.asker.client_id.clone(), key.clone())) => {
                answers[at] = Some(Ok(Intended::Taken));
            }
            _ => firsts.push((at, item)),
        }
    }
    firsts.sort_by(|(_, a), (_, b)| {
        (&a.asker.client_id, &a.asker.key.0).cmp(&(&b.asker.client_id, &b.asker.key.0))
    });
    let (places, items): (Vec<usize>, Vec<Reserving>) = firsts.into_iter().unzip();
    for (at, answer) in places.into_iter().zip(record(&state, now_ms, items).await) {
        answers[at] = Some(answer);
    }
    answers
        .into_iter()
        .map(|a| a.unwrap_or_else(|| Err(PaymentsError::internal("an intent went unanswered"))))
        .collect()
}

/// Records intents in one transaction. If one cannot be recorded (a named supporter that
/// is not the organisation's, a key another request took meanwhile), they are recorded
/// again in one transaction with each behind a savepoint, so only that one is undone; each
/// on its own only when that transaction fails too. One intent that cannot be recorded
/// never holds back the others, and costs them one transaction more, not one each.
async fn record(state: &Parts, now_ms: i64, items: Vec<Reserving>) -> Vec<Reserved> {
    let items = Arc::new(items);
    if items.len() > 1 {
        // The errors themselves are not made into answers here: each intent's own is
        // given below, and an internal one logs as it is made.
        let shared = Arc::clone(&items);
        let written = write(state, move |tx| apply_all(tx, now_ms, &shared)).await;
        if let Ok(payments) = written {
            return payments
                .into_iter()
                .map(|p| Ok(Intended::Fresh(Box::new(p))))
                .collect();
        }
        let shared = Arc::clone(&items);
        let written = write(state, move |tx| apply_guarded(tx, now_ms, &shared)).await;
        if let Ok(each) = written {
            return items.iter().zip(each).map(|(i, e)| answer(i, e)).collect();
        }
    }
    let mut each = Vec::with_capacity(items.len());
    for item in items.iter() {
        let one = Arc::new(vec![item.clone()]);
        let written = write(state, move |tx| apply_all(tx, now_ms, &one))
            .await
            .and_then(|mut p| p.pop().ok_or_else(|| internal("an intent went unrecorded")));
        each.push(answer(item, written));
    }
    each
}

/// An intents batch in a transaction of its own, not shared through group commit: a
/// batch inserts its Idempotency-Keys in order, but a shared transaction holding several
/// batches would insert theirs out of order, and two such transactions deadlocked on
/// PostgreSQL. The batch is group commit enough.
async fn write<T, F>(state: &Parts, effect: F) -> Result<T, Failure>
where
    T: Send + 'static,
    F: FnMut(&mut Db<'_>) -> Result<T, Failure> + Clone + Send + 'static,
{
    coffer_http::retry_contended(|| {
        let mut effect = effect.clone();
        state.store.run(move |db| db.write_tx(|tx| effect(tx)))
    })
    .await
}

/// What an intent's recording tells its caller.
fn answer(item: &Reserving, written: Result<Payment, Failure>) -> Reserved {
    match written {
        Ok(payment) => Ok(Intended::Fresh(Box::new(payment))),
        // Only a key can be taken by another request; without one, a unique violation is
        // an internal error, not a conflict the client could settle by retrying.
        Err(Failure::Db(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)))
            if item.asker.key.0.is_some() =>
        {
            Ok(Intended::Taken)
        }
        Err(other) => Err(other.into()),
    }
}

/// The batch in one transaction, each intent behind a savepoint: the ones that fail are
/// undone alone and keep their error; the rest are inserted together.
fn apply_guarded(
    tx: &mut Db<'_>,
    now_ms: i64,
    batch: &[Reserving],
) -> Result<Vec<Result<Payment, Failure>>, Failure> {
    let each: Vec<Result<Payment, Failure>> = batch
        .iter()
        .map(|item| tx.write_tx(|sp| intend(sp, now_ms, item)))
        .collect();
    let payments: Vec<Payment> = each
        .iter()
        .filter_map(|p| p.as_ref().ok())
        .cloned()
        .collect();
    record::insert_all(tx, &payments)?;
    Ok(each)
}

/// The batch in one transaction: each intent's supporter and key, then every payment in
/// one insert.
fn apply_all(tx: &mut Db<'_>, now_ms: i64, batch: &[Reserving]) -> Result<Vec<Payment>, Failure> {
    let payments = batch
        .iter()
        .map(|item| intend(tx, now_ms, item))
        .collect::<Result<Vec<_>, _>>()?;
    record::insert_all(tx, &payments)?;
    Ok(payments)
}

/// One intent's supporter and key; its payment is the caller's to insert.
fn intend(tx: &mut Db<'_>, now_ms: i64, item: &Reserving) -> Result<Payment, Failure> {
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
    Ok(payment)
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
        let found = crate::shared::supporter_store::find(tx, named)?
            .filter(|s| s.organisation_uuid == payment.organisation_uuid)
            .ok_or_else(|| Failure::from(PaymentsError::not_found("Supporter")))?;
        payment.supporter_uuid = Some(found.uuid);
    }
    if let Some(s) = supporter {
        crate::shared::supporter_store::insert(tx, s)?;
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
