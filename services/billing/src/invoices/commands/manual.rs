//! The operations on invoices by hand: make one, close one, start a charge attempt.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_events::TraceContext;
use coffer_model::over_maximum;
use serde_json::Value;
use uuid::Uuid;

use super::{load, open, rendered, start_attempt};
use crate::error::BillingError;
use crate::invoices::domain::{InvoiceStatus, charging, manual};
use crate::invoices::{events, store};
use crate::state::BillingState;
use crate::subscriptions::commands::load as load_subscription;
use crate::subscriptions::domain::SubscriptionStatus;
use crate::subscriptions::store as subscriptions;
use coffer_http::idempotency::Once;

/// An invoice made by hand: the subscription's amount unless another is given, its custom
/// parameters with the request's over them. It is charged when a charge attempt is made.
pub(crate) async fn create(
    state: &BillingState,
    caller: &Caller,
    once: Once,
    subscription: Uuid,
    body: &Value,
    trace: TraceContext,
) -> Result<HttpResponse, BillingError> {
    let asked = manual::read(body).map_err(BillingError::invalid_all)?;
    let s = load_subscription(state, caller, subscription).await?;
    if asked
        .amount
        .is_some_and(|a| a > s.currency.max_minor_units())
    {
        return Err(BillingError::invalid_all(vec![over_maximum(
            "amount", s.currency,
        )]));
    }
    let now = state.clock.unix();
    let mut invoice = charging::draft(&s, None, now, now);
    if let Some(a) = asked.amount {
        invoice.amount = a;
    }
    invoice.custom_parameters =
        charging::merged(&s.custom_parameters, asked.custom_parameters.as_ref());
    if let Some(service) = asked.service_parameters {
        invoice.service_parameters = service;
    }
    let outbox = state.outbox.clone();
    let response = once
        .run(&state.store, state.clock.as_ref(), move |tx| {
            // Judged on the subscription as it is now, locked: one cancelled meanwhile takes
            // no further invoice.
            let s = subscriptions::find_locked(tx, &invoice.subscription_uuid)?
                .ok_or(BillingError::not_found("Subscription"))?;
            if !s.status.takes_invoices() {
                return Err(over(s.status, "invoices"));
            }
            open(tx, &outbox, &invoice, Some(&trace))?;
            Ok((StatusCode::CREATED, rendered(tx, &invoice)?))
        })
        .await?;
    state.outbox.committed();
    Ok(response)
}

/// Closes an open invoice as paid or cancelled: no charge, and no more retries. Decided on
/// the invoice locked in the changing transaction, as Create Charge Attempt decides, so
/// that an attempt started meanwhile is seen: the close is refused while one is pending.
pub(crate) async fn close(
    state: &BillingState,
    caller: &Caller,
    path: [Uuid; 2],
    body: &Value,
    trace: TraceContext,
) -> Result<Value, BillingError> {
    let status = manual::closing_status(body).map_err(|e| BillingError::invalid_all(vec![e]))?;
    let (_, invoice) = load(state, caller, path).await?;
    let now = state.clock.unix();
    let outbox = state.outbox.clone();
    let body = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let current = store::find_invoice_locked(tx, &invoice.uuid)?
                    .ok_or(BillingError::not_found("Invoice"))?;
                let attempts = store::attempts_of(tx, &current.uuid)?;
                let closed = manual::close(current, &attempts, status)
                    .map_err(|e| BillingError::invalid_all(vec![e]))?;
                if !store::save_invoice(tx, &closed, InvoiceStatus::Open, now)? {
                    return Err(BillingError::ChangedMeanwhile(
                        "The invoice changed meanwhile",
                    ));
                }
                let body = closed.render(&attempts);
                events::closed(tx, &outbox, &closed, body.clone(), Some(&trace))?;
                Ok::<_, BillingError>(body)
            })
        })
        .await?;
    state.outbox.committed();
    Ok(body)
}

/// Starts a charge attempt by hand; 409 while one is pending (the unique index decides,
/// however many requests race) or when the invoice is no longer open.
pub(crate) async fn charge(
    state: &BillingState,
    caller: &Caller,
    once: Once,
    path: [Uuid; 2],
    trace: TraceContext,
) -> Result<HttpResponse, BillingError> {
    // Every state is judged inside the key's transaction, so a retry of an attempt made
    // before (whose invoice is paid by now) is answered as it was, not refused.
    let (_, invoice) = load(state, caller, path).await?;
    let now = state.clock.unix();
    let outbox = state.outbox.clone();
    let response = once
        .run(&state.store, state.clock.as_ref(), move |tx| {
            // Judged on the invoice and its subscription as they are now, locked (in the order
            // a payment's result takes them): one paid meanwhile (its attempt succeeded while
            // this request waited) takes no other, nor does a cancelled subscription's.
            let invoice = store::find_invoice_locked(tx, &invoice.uuid)?
                .ok_or(BillingError::not_found("Invoice"))?;
            if invoice.status != InvoiceStatus::Open {
                return Err(BillingError::conflict(format!(
                    "The invoice is {}",
                    invoice.status
                )));
            }
            let s = subscriptions::find_locked(tx, &invoice.subscription_uuid)?
                .ok_or(BillingError::not_found("Subscription"))?;
            if !s.status.takes_charge_attempts() {
                return Err(over(s.status, "charge attempts"));
            }
            let subscription = subscriptions::rendered(tx, &s)?;
            let attempt = start_attempt(
                tx,
                &outbox,
                subscription.clone(),
                &invoice,
                now,
                Some(&trace),
            )?
            .ok_or_else(|| BillingError::conflict("The invoice has a pending charge attempt"))?;
            Ok((
                StatusCode::CREATED,
                attempt.render(&invoice, Some(subscription)),
            ))
        })
        .await?;
    state.outbox.committed();
    Ok(response)
}

/// 409 for a subscription that takes no more `what`.
fn over(status: SubscriptionStatus, what: &str) -> BillingError {
    BillingError::conflict(format!(
        "The subscription is {status}: it takes no further {what}"
    ))
}
