//! What a payment announces once it has succeeded or failed, and the body it is answered
//! with: the same for every feature that ends a payment (payments, direct debits, wire
//! transfers, the test provider's pages); and what a payment source announces, whether
//! payments kept it with a payment or payment sources did.

use coffer_events::catalogue::{
    PAYMENT_FAILED, PAYMENT_SOURCE_CREATED, PAYMENT_SOURCE_FAILED, PAYMENT_SUCCEEDED,
};
use coffer_events::{Outbox, OutboxEvent, TraceContext, append};
use coffer_http::failure::{Failure, internal};
use coffer_store::Db;

use super::record::{Payment, PaymentStatus};
use super::source::{Source, SourceStatus};

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

/// The event that announces `source` as it now stands; none while it is pending, as a
/// pending source is announced once the donor has decided.
pub(crate) fn source_announcement(
    outbox: &Outbox,
    source: &Source,
) -> Result<Option<OutboxEvent>, Failure> {
    let kind = match source.status {
        SourceStatus::Active => &PAYMENT_SOURCE_CREATED,
        SourceStatus::Failed => &PAYMENT_SOURCE_FAILED,
        SourceStatus::Pending => return Ok(None),
    };
    Ok(Some(outbox.event(
        kind,
        source.uuid.parse().map_err(internal)?,
        source.organisation_uuid.parse().ok(),
        source.account_uuid.parse().ok(),
        serde_json::to_value(source).map_err(internal)?,
    )))
}
