//! What invoices emit (invoice.*, charge_attempt.*), and what they read of payments'
//! answers: a charge attempt's payment that ended, and a one-off payment that starts a
//! subscription with its first invoice paid. The consumer that hands those to the
//! commands is [`PaymentResults`] (payment_results.rs, below the commands it calls: they
//! emit through this file).

use coffer_events::catalogue::{
    CHARGE_ATTEMPT_CREATED, CHARGE_ATTEMPT_FAILED, CHARGE_ATTEMPT_SUCCEEDED, INVOICE_CANCELLED,
    INVOICE_CREATED, INVOICE_PAID, PAYMENT_CANCELLED, PAYMENT_FAILED, PAYMENT_SUCCEEDED,
};
mod payment_results;

use coffer_events::{Event, EventType, Outbox, OutboxEvent, TraceContext};
use coffer_store::Db;
use diesel::QueryResult;
use serde_json::{Map, Value};

use super::domain::{ChargeAttempt, Invoice, InvoiceStatus};
use crate::announce::announce;

pub use payment_results::PaymentResults;

/// An event about `object`, the invoice or one of its attempts, of the invoice's owner.
fn about(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    kind: &EventType,
    (object, invoice): (&str, &Invoice),
    body: Value,
    trace: Option<&TraceContext>,
) -> QueryResult<()> {
    let owner = (&invoice.organisation_uuid, &invoice.account_uuid);
    announce(tx, outbox, kind, (object, owner.0, owner.1), body, trace)
}

/// The event [`about`] appends, for a caller that appends many together.
fn about_event(
    outbox: &Outbox,
    kind: &EventType,
    (object, invoice): (&str, &Invoice),
    body: Value,
) -> QueryResult<OutboxEvent> {
    let owner = (&*invoice.organisation_uuid, &*invoice.account_uuid);
    crate::announce::event(outbox, kind, (object, owner.0, owner.1), body)
}

/// A new invoice; `body` is the invoice with the attempts it was made with.
pub(crate) fn created(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    invoice: &Invoice,
    body: Value,
    trace: Option<&TraceContext>,
) -> QueryResult<()> {
    about(
        tx,
        outbox,
        &INVOICE_CREATED,
        (&invoice.uuid, invoice),
        body,
        trace,
    )
}

/// An invoice closed, as `paid` or `cancelled`; `body` is the invoice with its attempts.
pub(crate) fn closed(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    invoice: &Invoice,
    body: Value,
    trace: Option<&TraceContext>,
) -> QueryResult<()> {
    about(
        tx,
        outbox,
        closed_kind(invoice),
        (&invoice.uuid, invoice),
        body,
        trace,
    )
}

/// The event [`closed`] appends, for a caller that appends many together.
pub(crate) fn closed_event(
    outbox: &Outbox,
    invoice: &Invoice,
    body: Value,
) -> QueryResult<OutboxEvent> {
    about_event(outbox, closed_kind(invoice), (&invoice.uuid, invoice), body)
}

fn closed_kind(invoice: &Invoice) -> &'static EventType {
    if invoice.status == InvoiceStatus::Paid {
        &INVOICE_PAID
    } else {
        &INVOICE_CANCELLED
    }
}

/// A charge attempt started; `subscription` is the subscription as answered, which
/// payments charges.
pub(crate) fn attempt_created(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    attempt: &ChargeAttempt,
    invoice: &Invoice,
    subscription: Value,
    trace: Option<&TraceContext>,
) -> QueryResult<()> {
    let body = attempt.render(invoice, Some(subscription));
    about(
        tx,
        outbox,
        &CHARGE_ATTEMPT_CREATED,
        (&attempt.uuid, invoice),
        body,
        trace,
    )
}

/// A charge attempt ended as payments answered; `body` is the attempt as rendered (with,
/// for a failure, whether the supporter is to be told).
pub(crate) fn attempt_finished(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    attempt: &ChargeAttempt,
    invoice: &Invoice,
    succeeded: bool,
    body: Value,
) -> QueryResult<()> {
    about(
        tx,
        outbox,
        finished_kind(succeeded),
        (&attempt.uuid, invoice),
        body,
        None,
    )
}

/// The event [`attempt_finished`] appends, for a caller that appends many together.
pub(crate) fn attempt_finished_event(
    outbox: &Outbox,
    attempt: &ChargeAttempt,
    invoice: &Invoice,
    succeeded: bool,
    body: Value,
) -> QueryResult<OutboxEvent> {
    about_event(
        outbox,
        finished_kind(succeeded),
        (&attempt.uuid, invoice),
        body,
    )
}

fn finished_kind(succeeded: bool) -> &'static EventType {
    if succeeded {
        &CHARGE_ATTEMPT_SUCCEEDED
    } else {
        &CHARGE_ATTEMPT_FAILED
    }
}

/// What payments answered for a charge attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChargeResult {
    pub attempt_uuid: String,
    pub payment_uuid: String,
    pub succeeded: bool,
    pub status_reason: Option<String>,
}

/// The result a payment event carries, when it is one of a charge attempt's (it names
/// `charge_attempt_uuid`) and it ended: succeeded, failed or cancelled.
pub(crate) fn charge_result(event: &Event) -> Option<ChargeResult> {
    let attempt = event.data["charge_attempt_uuid"].as_str()?;
    let succeeded = PAYMENT_SUCCEEDED.is(&event.name);
    let failed = PAYMENT_FAILED.is(&event.name) || PAYMENT_CANCELLED.is(&event.name);
    (succeeded || failed).then(|| ChargeResult {
        attempt_uuid: attempt.to_owned(),
        payment_uuid: event.object_uuid.to_string(),
        succeeded,
        status_reason: event.data["status_reason"].as_str().map(str::to_owned),
    })
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
