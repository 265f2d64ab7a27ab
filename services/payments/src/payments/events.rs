//! What a payment announces: its outcome, and the supporter it created.

use coffer_events::catalogue::{PAYMENT_FAILED, PAYMENT_SUCCEEDED, SUPPORTER_CREATED};
use coffer_events::{OutboxEvent, TraceContext, append};
use coffer_store::Db;

use crate::PaymentsState;
use crate::failure::{Failure, internal};
use crate::shared::record::{Payment, PaymentStatus};
use crate::supporters::domain::Supporter;

/// Writes the payment's events to the outbox and gives its response body.
pub(crate) fn announce(
    tx: &mut Db<'_>,
    state: &PaymentsState,
    payment: &Payment,
    supporter: Option<&Supporter>,
    trace: &TraceContext,
) -> Result<serde_json::Value, Failure> {
    let (events, body) = announcements(state, payment, supporter)?;
    append(tx, &events, Some(trace))?;
    Ok(body)
}

/// The payment's events, to be written in its transaction, and its response body.
pub(crate) fn announcements(
    state: &PaymentsState,
    payment: &Payment,
    supporter: Option<&Supporter>,
) -> Result<(Vec<OutboxEvent>, serde_json::Value), Failure> {
    let body = serde_json::to_value(payment).map_err(internal)?;
    let id = payment.uuid.parse().map_err(internal)?;
    let (organisation, account) = (
        payment.organisation_uuid.parse().ok(),
        payment.account_uuid.parse().ok(),
    );
    let mut events = Vec::new();
    if let Some(s) = supporter {
        let data = serde_json::to_value(s).map_err(internal)?;
        let sid = s.uuid.parse().map_err(internal)?;
        events.push(
            state
                .outbox
                .event(&SUPPORTER_CREATED, sid, organisation, None, data),
        );
    }
    match payment.status {
        PaymentStatus::Succeeded => events.push(state.outbox.event(
            &PAYMENT_SUCCEEDED,
            id,
            organisation,
            account,
            body.clone(),
        )),
        PaymentStatus::Failed => events.push(state.outbox.event(
            &PAYMENT_FAILED,
            id,
            organisation,
            account,
            body.clone(),
        )),
        _ => {}
    }
    Ok((events, body))
}
