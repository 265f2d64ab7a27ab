//! Taking money, as three steps with the provider's call between them (docs/payments.md,
//! "Charging"):
//!
//! 1. record the intent: the payment is stored pending, its call `calling` (or `reserved`,
//!    to be sent by a worker), with the Idempotency-Key reserved in the same transaction;
//! 2. call the provider, outside any transaction, with the payment's uuid as the key the
//!    provider sees and a timeout;
//! 3. record the outcome in a transaction of its own, once, whoever hears it first.
//!
//! An outcome not heard (a timeout, a crash) leaves the payment `calling`; [`settle`] then
//! asks the provider what it did under that key. Nothing here ever calls again under a new
//! key, so no retry, crash or second process charges twice.

use std::collections::HashMap;

use actix_web::HttpResponse;
use coffer_events::TraceContext;
use coffer_http::idempotency::Reservation;
use coffer_store::StoreError;
use serde_json::Value;

use super::intents;
use super::outcome::Recording;
use super::{ChargeBatches, current};
use crate::command_kit::{Asker, Parts, Reserved, reserved, within};
use crate::error::PaymentsError;
use crate::payments::store;
use crate::shared::connector::{ChargeOutcome, Charged, ConnectorError, Prepared, StoredCharge};
use crate::shared::record::{ChargeState, Payment};
use crate::shared::source_store as sources;
use crate::shared::store as record;

/// The payment a reservation recorded, or the answer due to a request made before under
/// its key: while that one is still under way, or after it stopped, the payment as it
/// stands, never a second charge.
pub(super) async fn payment_or_answer(
    state: &Parts,
    reservation: Reservation<Payment>,
) -> Result<Reserved<Payment>, PaymentsError> {
    let in_progress = |uuid: String| async move {
        Ok::<_, PaymentsError>(HttpResponse::Created().json(current(state, uuid).await?))
    };
    reserved(reservation, "payment_uuid", in_progress).await
}

/// Step 3: records the provider's answer for a payment whose call is under way, with the
/// source it kept, and announces the outcome. None when the answer was recorded already.
pub(crate) async fn record(
    (state, batches): (&Parts, &ChargeBatches),
    uuid: &str,
    charged: Charged,
    asker: Option<&Asker>,
    trace: &TraceContext,
) -> Result<Option<Value>, PaymentsError> {
    // Read before the write transaction, so the write holds the database only as long as
    // it writes; the update itself checks that the call is still under way.
    let id = uuid.to_owned();
    let Some(payment) = state.store.query(move |db| record::find(db, &id)).await? else {
        return Ok(None);
    };
    record_on((state, batches), payment, charged, asker, trace).await
}

/// [`record`] for a payment at hand as it was recorded (its call under way).
pub(super) async fn record_on(
    (state, batches): (&Parts, &ChargeBatches),
    payment: Payment,
    charged: Charged,
    asker: Option<&Asker>,
    trace: &TraceContext,
) -> Result<Option<Value>, PaymentsError> {
    if payment.charge_state != ChargeState::Calling {
        return Ok(None);
    }
    let recording = Recording {
        state: state.clone(),
        payment,
        charged,
        completes: asker.map(|a| (a.client_id.clone(), a.key.clone())),
        trace: trace.clone(),
    };
    let body = batches
        .outcomes
        .submit(recording)
        .await
        .unwrap_or_else(|| {
            Err(PaymentsError::internal(
                "recording the outcome was cancelled",
            ))
        })?;
    if body.is_some() {
        state.outbox.committed();
        state.connectors.committed();
    }
    Ok(body)
}

/// Settles a payment whose call began long enough ago and was never answered, by asking
/// the provider what it did under the payment's key. A key the provider never received
/// was never charged: the payment fails, and nothing is sent again.
pub(crate) async fn settle(
    (state, batches): (&Parts, &ChargeBatches),
    uuid: &str,
    before: i64,
) -> Result<(), PaymentsError> {
    let (id, now) = (uuid.to_owned(), state.clock.unix());
    let claimed = state
        .store
        .query(move |db| store::claim_call(db, &id, ChargeState::Calling, before, now))
        .await?;
    if !claimed {
        return Ok(());
    }
    let id = uuid.to_owned();
    let Some(payment) = state.store.query(move |db| record::find(db, &id)).await? else {
        return Ok(());
    };
    // What the provider made ahead of the charge, as recorded: the object to read.
    let prepared = payment.provider_payment_id.as_deref();
    let asked = async {
        let connector = state.connectors.for_payment(&payment).await?;
        within(state, connector.find_charge(uuid, prepared, payment.amount)).await
    };
    let known = match asked.await {
        Ok(known) => known,
        Err(e) => {
            tracing::warn!(payment = %uuid, error = %e, "the provider cannot say yet what it did; asking again later");
            return Ok(());
        }
    };
    let charged = known.unwrap_or_else(|| Charged {
        outcome: ChargeOutcome::Failed {
            provider_payment_id: String::new(),
            reason: "provider_unreachable".into(),
        },
        stored: None,
    });
    record(
        (state, batches),
        uuid,
        charged,
        None,
        &TraceContext::new_root(),
    )
    .await?;
    Ok(())
}

/// POST /payment-sources/{uuid}/charges: records `payment` (calling) under the asker's
/// Idempotency-Key, charges the source by its provider reference under the payment's key,
/// and records what the provider said. A retry under the same key is answered with that
/// payment (as it stands while its call is under way), never a second charge.
pub(crate) async fn charge_again(
    (state, batches): (&Parts, &ChargeBatches),
    asker: Asker,
    hash: String,
    payment: Payment,
    reference: &str,
    trace: &TraceContext,
) -> Result<HttpResponse, PaymentsError> {
    let recorded = payment.clone();
    let reservation = asker
        .reserve(
            state,
            hash,
            move |tx| {
                record::insert(tx, &recorded)
                    .map(|()| recorded.clone())
                    .map_err(PaymentsError::from)
            },
            intents::marker,
        )
        .await?;
    let payment = match payment_or_answer(state, reservation).await? {
        Reserved::Fresh(payment) => payment,
        Reserved::Answered(response) => return Ok(response),
    };
    let answer = charge_stored(state, &payment, reference, payment.created).await;
    match answer {
        Ok(outcome) => {
            let charged = Charged {
                outcome,
                stored: None,
            };
            let parts = (state, batches);
            if let Some(body) = record(parts, &payment.uuid, charged, Some(&asker), trace).await? {
                return Ok(HttpResponse::Created().json(body));
            }
        }
        Err(e) => {
            tracing::warn!(payment = %payment.uuid, error = %e, "the provider's answer is unknown; the payment stays pending until it is settled")
        }
    }
    Ok(HttpResponse::Created().json(current(state, payment.uuid).await?))
}

/// Sends payments recorded `reserved` (billing's charge attempts): takes those among
/// `uuids` into calls in one statement, then charges each one's source under the payment's
/// key, side by side, and records each outcome. The caller passes only as many as it wants
/// called at once: a taken payment's call must begin well within `settle_after`, or the
/// settler would ask the provider about a key before it was sent.
pub(crate) async fn send(
    (state, batches): (&Parts, &ChargeBatches),
    uuids: Vec<String>,
) -> Result<(), PaymentsError> {
    let now = state.clock.unix();
    let claimed = state
        .store
        .write(move |db| store::claim_reserved(db, &uuids, now).map_err(StoreError::from))
        .await?;
    let sources: Vec<String> = claimed
        .iter()
        .filter_map(|p| p.payment_source_uuid.clone())
        .collect();
    let references: HashMap<String, String> = state
        .store
        .query(move |db| sources::references(db, &sources))
        .await?
        .into_iter()
        .collect();
    let calls = claimed.into_iter().map(|payment| {
        let reference = payment
            .payment_source_uuid
            .as_ref()
            .and_then(|s| references.get(s))
            .cloned();
        send_one((state, batches), payment, reference, now)
    });
    for result in futures_util::future::join_all(calls).await {
        result?;
    }
    Ok(())
}

/// One payment [`send`] took into its call.
async fn send_one(
    (state, batches): (&Parts, &ChargeBatches),
    payment: Payment,
    reference: Option<String>,
    started: i64,
) -> Result<(), PaymentsError> {
    let Some(reference) = reference else {
        // Left `calling`: the settler fails it once the provider says it never saw the key.
        tracing::warn!(payment = %payment.uuid, "a reserved payment names no payment source it can charge");
        return Ok(());
    };
    let answer = charge_stored(state, &payment, &reference, started).await;
    match answer {
        Ok(outcome) => {
            let charged = Charged {
                outcome,
                stored: None,
            };
            let parts = (state, batches);
            record_on(parts, payment, charged, None, &TraceContext::new_root()).await?;
        }
        Err(e) => {
            tracing::warn!(payment = %payment.uuid, error = %e, "the provider's answer is unknown; the payment stays pending until it is settled")
        }
    }
    Ok(())
}

/// Charges a stored instrument for `payment`, under the payment's key, whose call began at
/// `started`: what the provider makes ahead of it is recorded on the payment first (as for
/// a charge of the request's instrument, initiate.rs), so a lost answer is settled by
/// reading it. Err when the outcome is not known here: the settler asks the provider.
async fn charge_stored(
    state: &Parts,
    payment: &Payment,
    reference: &str,
    started: i64,
) -> Result<ChargeOutcome, ConnectorError> {
    let connector = state.connectors.for_payment(payment).await?;
    let mut charge = StoredCharge {
        reference,
        key: &payment.uuid,
        amount: payment.amount,
        prepared: None,
    };
    let made = match within(state, connector.prepare_stored(&charge)).await? {
        Prepared::Nothing => None,
        Prepared::Made(id) => Some(id),
        Prepared::Answered(charged) => return Ok(charged.outcome),
    };
    if let Some(id) = made.clone() {
        let uuid = payment.uuid.clone();
        let recorded = state
            .store
            .write(move |db| {
                store::record_prepared(db, &uuid, started, &id).map_err(StoreError::from)
            })
            .await
            .map_err(|e| ConnectorError::Unreachable(format!("not recorded: {e}")))?;
        if !recorded {
            return Err(ConnectorError::Unreachable(
                "the settler took the payment before its charge".into(),
            ));
        }
    }
    charge.prepared = made.as_deref();
    within(state, connector.charge_stored(charge)).await
}
