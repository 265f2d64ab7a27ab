//! What subscriptions emit (subscription.*). A payment that starts one is read with the
//! other payments' answers, in invoices/events.rs.

use coffer_events::{EventType, Outbox, TraceContext};
use coffer_store::Db;
use diesel::QueryResult;
use serde_json::Value;

use super::domain::Subscription;
use crate::announce::announce;

/// Announces a change of `s`; `body` is the subscription as answered.
pub(crate) fn announce_change(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    kind: &EventType,
    s: &Subscription,
    body: Value,
    trace: Option<&TraceContext>,
) -> QueryResult<()> {
    announce(
        tx,
        outbox,
        kind,
        (&s.uuid, &s.organisation_uuid, &s.account_uuid),
        body,
        trace,
    )
}
