//! What makes, closes, charges or shows an invoice: one use case per function; the only
//! way in for routes, the scheduler and payments' results.

pub(crate) mod from_payment;
mod manual;
pub(crate) mod paid_together;
pub(crate) mod results;

use coffer_auth::Caller;
use coffer_events::{Outbox, TraceContext};
use coffer_store::Db;
use diesel::QueryResult;
use serde_json::Value;
use uuid::Uuid;

pub(crate) use manual::{charge, close, create};

use super::domain::{ChargeAttempt, Invoice};
use super::{events, store};
use crate::error::BillingError;
use crate::state::BillingState;
use crate::subscriptions::commands::load as load_subscription;
use crate::subscriptions::domain::Subscription;

/// The invoice with its attempts, as answered.
fn rendered(db: &mut Db<'_>, invoice: &Invoice) -> QueryResult<Value> {
    let attempts = store::attempts_of(db, &invoice.uuid)?;
    Ok(invoice.render(&attempts))
}

/// The subscription (which the caller may touch) and one of its invoices.
async fn load(
    state: &BillingState,
    caller: &Caller,
    [subscription, invoice]: [Uuid; 2],
) -> Result<(Subscription, Invoice), BillingError> {
    let s = load_subscription(state, caller, subscription).await?;
    let id = invoice.to_string();
    let invoice = state
        .store
        .query(move |db| store::find_invoice(db, &id))
        .await?
        .filter(|i| i.subscription_uuid == s.uuid)
        .ok_or(BillingError::not_found("Invoice"))?;
    Ok((s, invoice))
}

/// A subscription's invoices, as answered.
pub(crate) async fn list(
    state: &BillingState,
    caller: &Caller,
    subscription: Uuid,
) -> Result<Vec<Value>, BillingError> {
    let s = load_subscription(state, caller, subscription).await?;
    Ok(state
        .store
        .query(move |db| {
            db.snapshot(|db| {
                let invoices = store::invoices_of(db, &s.uuid)?;
                invoices.iter().map(|i| rendered(db, i)).collect()
            })
        })
        .await?)
}

pub(crate) async fn show(
    state: &BillingState,
    caller: &Caller,
    path: [Uuid; 2],
) -> Result<Value, BillingError> {
    let (_, invoice) = load(state, caller, path).await?;
    // Read again beside its attempts, on one snapshot: a payment's result ends both at once.
    let shown = state
        .store
        .query(move |db| {
            db.snapshot(|db| match store::find_invoice(db, &invoice.uuid)? {
                Some(now) => rendered(db, &now),
                None => rendered(db, &invoice),
            })
        })
        .await?;
    Ok(shown)
}

/// Stores a new invoice and announces it, in the caller's transaction; false when its
/// charge date had one already.
pub(crate) fn open(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    invoice: &Invoice,
    trace: Option<&TraceContext>,
) -> QueryResult<bool> {
    if !store::insert_invoice(tx, invoice)? {
        return Ok(false);
    }
    events::created(tx, outbox, invoice, invoice.render(&[]), trace)?;
    Ok(true)
}

/// Starts a charge attempt of the invoice, in the caller's transaction; payments charges
/// the subscription's source when it reads the event. `None` when the invoice has a
/// pending attempt already.
pub(crate) fn start_attempt(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    subscription: Value,
    invoice: &Invoice,
    now: i64,
    trace: Option<&TraceContext>,
) -> QueryResult<Option<ChargeAttempt>> {
    let attempt = ChargeAttempt::pending(invoice, now);
    if !store::insert_attempt(tx, &attempt)? {
        return Ok(None);
    }
    events::attempt_created(tx, outbox, &attempt, invoice, subscription, trace)?;
    Ok(Some(attempt))
}
