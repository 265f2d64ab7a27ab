//! What subscriptions emit (subscription.*), and how they read a payment that starts one.

use coffer_events::catalogue::PAYMENT_SUCCEEDED;
use coffer_events::{Event, EventType, Outbox, TraceContext};
use coffer_store::Db;
use diesel::QueryResult;
use serde_json::{Map, Value};

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

/// A donor's one-off payment that asked for a subscription: it succeeded, stored a
/// payment source, and names the terms.
pub(crate) struct PaymentStart<'a> {
    pub payment_uuid: String,
    /// The payment as payments announced it.
    pub payment: &'a Value,
    pub terms: Map<String, Value>,
    pub source_uuid: &'a str,
}

pub(crate) fn payment_start(event: &Event) -> Option<PaymentStart<'_>> {
    let data = &event.data;
    // A charge attempt's payment belongs to a subscription already.
    if !PAYMENT_SUCCEEDED.is(&event.name) || data["charge_attempt_uuid"].is_string() {
        return None;
    }
    let mut terms = data["subscription"].as_object()?.clone();
    let source_uuid = data["created_payment_source_uuid"].as_str()?;
    // A payment's terms name the plan `plan_uuid` (SPEC.md's PaymentSubscription), where
    // Create Subscription says `subscription_plan_uuid`.
    if let Some(plan) = terms.remove("plan_uuid") {
        terms.entry("subscription_plan_uuid").or_insert(plan);
    }
    Some(PaymentStart {
        payment_uuid: event.object_uuid.to_string(),
        payment: data,
        terms,
        source_uuid,
    })
}
