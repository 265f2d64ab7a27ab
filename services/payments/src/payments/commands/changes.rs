//! Changes to a recorded payment: cancelling one that waits, and its custom parameters.

use coffer_auth::Caller;
use coffer_events::catalogue::PAYMENT_CANCELLED;
use coffer_events::{TraceContext, append};
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::{Map, Value};

use crate::command_kit::{Parts, require_owner};
use crate::error::PaymentsError;
use crate::payments::domain::{cancel_refusal, merged_parameters};
use crate::payments::store;
use crate::shared::record::{Payment, PaymentStatus};
use crate::shared::source::SourceStatus;
use crate::shared::source_decision::decide_in;
use crate::shared::store as record;

/// The payment, locked for this transaction, once the caller may touch it.
fn load(tx: &mut Db<'_>, caller: &Caller, uuid: &str) -> Result<Payment, PaymentsError> {
    let payment = store::find_for_update(tx, uuid)?.ok_or(PaymentsError::not_found("Payment"))?;
    require_owner(caller, &payment.account_uuid, &payment.organisation_uuid)?;
    Ok(payment)
}

/// Cancels a payment still waiting on its donor, announcing it (and failing the source it
/// was to keep).
pub(crate) async fn cancel(
    state: &Parts,
    caller: Caller,
    uuid: String,
    reason: Option<String>,
    trace: TraceContext,
) -> Result<Payment, PaymentsError> {
    let now = state.clock.unix();
    let st = state.clone();
    let payment = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let payment = load(tx, &caller, &uuid)?;
                if let Some(why) = cancel_refusal(&payment) {
                    return Err(PaymentsError::Refused(why));
                }
                // The move is conditional still: a completion racing it, or a provider's
                // call begun meanwhile, leaves it undone.
                if !store::transition(
                    tx,
                    &uuid,
                    PaymentStatus::Pending,
                    PaymentStatus::Cancelled,
                    reason.as_deref(),
                    now,
                )? {
                    return Err(PaymentsError::Refused(
                        "The payment changed meanwhile; read it again".into(),
                    ));
                }
                // The source the payment was to keep is kept only if the payment succeeds.
                if let Some(source) = &payment.created_payment_source_uuid {
                    let failed = SourceStatus::decided(false);
                    let reason = Some("payment_cancelled");
                    decide_in(tx, &st.outbox, source, failed, reason, now, &trace)?;
                }
                let cancelled = record::find(tx, &uuid)?.ok_or(DieselError::NotFound)?;
                let body = serde_json::to_value(&cancelled).map_err(PaymentsError::internal)?;
                let event = st.outbox.event(
                    &PAYMENT_CANCELLED,
                    cancelled.uuid.parse().map_err(PaymentsError::internal)?,
                    cancelled.organisation_uuid.parse().ok(),
                    cancelled.account_uuid.parse().ok(),
                    body,
                );
                append(tx, &[event], Some(&trace))?;
                Ok(cancelled)
            })
        })
        .await?;
    state.outbox.committed();
    Ok(payment)
}

/// Replaces (or, with `merge`, merges into) a payment's custom parameters.
pub(crate) async fn change_parameters(
    state: &Parts,
    caller: Caller,
    uuid: String,
    incoming: Map<String, Value>,
    merge: bool,
) -> Result<Value, PaymentsError> {
    let now = state.clock.unix();
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let payment = load(tx, &caller, &uuid)?;
                let next = merged_parameters(&payment.custom_parameters, incoming, merge);
                store::set_custom_parameters(tx, &uuid, &next, now)?;
                Ok::<_, PaymentsError>(next)
            })
        })
        .await
}
