//! What the scheduler emits: the invoices and charge attempts of a pass (built here and
//! appended together), a charge announced ahead (`subscriptions.invoice.upcoming`), and a
//! subscription that resumed or ended on the way.

use coffer_events::catalogue::{
    CHARGE_ATTEMPT_CREATED, INVOICE_CREATED, INVOICE_UPCOMING, SUBSCRIPTION_ACTIVATED,
    SUBSCRIPTION_ENDED,
};
use coffer_events::{Outbox, OutboxEvent};
use coffer_store::Db;
use diesel::QueryResult;
use serde_json::Value;

use crate::invoices::domain::{ChargeAttempt, Invoice};
use crate::subscriptions::domain::Subscription;
use crate::subscriptions::events::announce_change;

fn id(u: &str) -> QueryResult<uuid::Uuid> {
    u.parse()
        .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))
}

/// A scheduled invoice and its first attempt; `subscription` is its subscription as
/// answered, which payments charges.
pub(crate) fn invoiced(
    outbox: &Outbox,
    s: &Subscription,
    invoice: &Invoice,
    attempt: &ChargeAttempt,
    subscription: Value,
) -> QueryResult<[OutboxEvent; 2]> {
    let (org, account) = (
        s.organisation_uuid.parse().ok(),
        s.account_uuid.parse().ok(),
    );
    Ok([
        outbox.event(
            &INVOICE_CREATED,
            id(&invoice.uuid)?,
            org,
            account,
            invoice.render(&[]),
        ),
        outbox.event(
            &CHARGE_ATTEMPT_CREATED,
            id(&attempt.uuid)?,
            org,
            account,
            attempt.render(invoice, Some(subscription)),
        ),
    ])
}

/// The next charge of `s`, at `due`, announced ahead; `body` is the subscription as
/// answered.
pub(crate) fn upcoming(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    s: &Subscription,
    mut body: Value,
    due: i64,
) -> QueryResult<()> {
    body["upcoming_due_date"] = due.into();
    announce_change(tx, outbox, &INVOICE_UPCOMING, s, body, None)
}

pub(crate) fn resumed(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    s: &Subscription,
    body: Value,
) -> QueryResult<()> {
    announce_change(tx, outbox, &SUBSCRIPTION_ACTIVATED, s, body, None)
}

pub(crate) fn ended(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    s: &Subscription,
    body: Value,
) -> QueryResult<()> {
    announce_change(tx, outbox, &SUBSCRIPTION_ENDED, s, body, None)
}
