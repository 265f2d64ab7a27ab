//! What a payment announces once it has succeeded or failed, and the body it is answered
//! with: the same for every feature that ends a payment (payments, direct debits, wire
//! transfers, the test provider's pages).

use coffer_events::catalogue::{PAYMENT_FAILED, PAYMENT_SUCCEEDED};
use coffer_events::{Outbox, OutboxEvent, TraceContext, append};
use coffer_http::failure::{Failure, internal};
use coffer_store::Db;

use super::record::{Payment, PaymentStatus};

/// Writes the payment's events to the outbox and gives its response body.
pub(crate) fn announce(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    payment: &Payment,
    trace: &TraceContext,
) -> Result<serde_json::Value, Failure> {
    let (events, body) = announcements(outbox, payment)?;
    append(tx, &events, Some(trace))?;
    Ok(body)
}

/// The payment's events, to be written in its transaction, and its response body.
pub(crate) fn announcements(
    outbox: &Outbox,
    payment: &Payment,
) -> Result<(Vec<OutboxEvent>, serde_json::Value), Failure> {
    let body = serde_json::to_value(payment).map_err(internal)?;
    let id = payment.uuid.parse().map_err(internal)?;
    let (organisation, account) = (
        payment.organisation_uuid.parse().ok(),
        payment.account_uuid.parse().ok(),
    );
    let mut events = Vec::new();
    match payment.status {
        PaymentStatus::Succeeded => {
            events.push(outbox.event(&PAYMENT_SUCCEEDED, id, organisation, account, body.clone()))
        }
        PaymentStatus::Failed => {
            events.push(outbox.event(&PAYMENT_FAILED, id, organisation, account, body.clone()))
        }
        _ => {}
    }
    Ok((events, body))
}
