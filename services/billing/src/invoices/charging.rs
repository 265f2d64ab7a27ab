//! Making invoices and starting charge attempts, for the scheduler and for the manual
//! operations alike. Each appends its events in the caller's transaction.

use coffer_events::catalogue::{CHARGE_ATTEMPT_CREATED, INVOICE_CREATED};
use coffer_events::{Outbox, TraceContext};
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::{Map, Value, json};

use super::record::{ChargeAttempt, Invoice};
use super::store;
use crate::announce::announce;
use crate::subscriptions::record::Subscription;

/// An open invoice of the subscription's amount, due at `due`.
pub fn draft(s: &Subscription, period: Option<String>, due: i64, now: i64) -> Invoice {
    Invoice {
        uuid: uuid::Uuid::new_v4().to_string(),
        subscription_uuid: s.uuid.clone(),
        organisation_uuid: s.organisation_uuid.clone(),
        account_uuid: s.account_uuid.clone(),
        is_manually_created: period.is_none(),
        period_date: period,
        due_date: due,
        status: "open".into(),
        status_reason: "pending".into(),
        amount: s.amount,
        refunded_amount: 0,
        currency: s.currency.code().to_owned(),
        next_attempt_date: None,
        failed_payment_attempts: 0,
        custom_parameters: s.custom_parameters.clone(),
        service_parameters: json!({}),
        created: now,
    }
}

/// Stores a new invoice and announces it; false when its charge date had one already.
pub fn open(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    invoice: &Invoice,
    trace: Option<&TraceContext>,
) -> Result<bool, DieselError> {
    if !store::insert_invoice(tx, invoice)? {
        return Ok(false);
    }
    announce(
        tx,
        outbox,
        &INVOICE_CREATED,
        (
            &invoice.uuid,
            &invoice.organisation_uuid,
            &invoice.account_uuid,
        ),
        invoice.render(&[]),
        trace,
    )?;
    Ok(true)
}

/// Starts a charge attempt of the invoice; payments charges the subscription's source when
/// it reads the event. `None` when the invoice has a pending attempt already.
pub fn start(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    s: &Subscription,
    subscription: Value,
    invoice: &Invoice,
    now: i64,
    trace: Option<&TraceContext>,
) -> Result<Option<ChargeAttempt>, DieselError> {
    let attempt = ChargeAttempt::pending(invoice, now);
    if !store::insert_attempt(tx, &attempt)? {
        return Ok(None);
    }
    announce(
        tx,
        outbox,
        &CHARGE_ATTEMPT_CREATED,
        (&attempt.uuid, &s.organisation_uuid, &s.account_uuid),
        attempt.render(invoice, Some(subscription)),
        trace,
    )?;
    Ok(Some(attempt))
}

/// Custom parameters of a manual invoice: the request's over the subscription's.
pub fn merged(base: &Map<String, Value>, over: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut out = base.clone();
    if let Some(over) = over {
        out.extend(over.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    out
}
