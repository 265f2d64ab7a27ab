//! Successful charge results applied together (billing's consumer hands a batch's over at
//! once): a handful of statements for the batch instead of about ten per result. Only the
//! common case is taken here: the attempt still pending, its invoice open and its only
//! one in the batch, its subscription on no test clock and with no failed invoices to
//! forget. Every other result goes through [`apply_payment_result`] on its own, after, so
//! what each result does is the same either way.

use std::collections::{HashMap, HashSet};

use coffer_events::{Outbox, append};
use coffer_store::Db;

use super::results::apply_payment_result;
use crate::error::BillingError;
use crate::invoices::domain::InvoiceStatus::Open;
use crate::invoices::domain::{AttemptStatus, ChargeAttempt, Invoice, state};
use crate::invoices::events::{self, ChargeResult};
use crate::invoices::store;
use crate::subscriptions::store as subscriptions;

/// Applies `results`, every one a success.
pub(crate) fn apply_successes(
    db: &mut Db<'_>,
    outbox: &Outbox,
    now: i64,
    results: &[ChargeResult],
) -> Result<(), BillingError> {
    if results.is_empty() {
        return Ok(());
    }
    let attempt_uuids: Vec<String> = results.iter().map(|r| r.attempt_uuid.clone()).collect();
    let attempts: HashMap<String, ChargeAttempt> = store::find_attempts(db, &attempt_uuids)?
        .into_iter()
        .map(|a| (a.uuid.clone(), a))
        .collect();
    let mut invoice_uuids: Vec<String> =
        attempts.values().map(|a| a.invoice_uuid.clone()).collect();
    invoice_uuids.sort();
    invoice_uuids.dedup();
    let invoices: HashMap<String, Invoice> = store::find_invoices_locked(db, &invoice_uuids)?
        .into_iter()
        .map(|i| (i.uuid.clone(), i))
        .collect();
    let subscription_uuids: Vec<String> = invoices
        .values()
        .map(|i| i.subscription_uuid.clone())
        .collect();
    let plain: HashSet<String> = subscriptions::find_many(db, &subscription_uuids)?
        .into_iter()
        .filter(|s| s.test_clock_uuid.is_none() && s.consecutive_failed_invoices == 0)
        .map(|s| s.uuid)
        .collect();
    // An invoice answered twice in the batch keeps its results' order: all go alone.
    let mut answers_per_invoice: HashMap<&str, usize> = HashMap::new();
    for r in results {
        if let Some(a) = attempts.get(&r.attempt_uuid) {
            *answers_per_invoice.entry(&a.invoice_uuid).or_default() += 1;
        }
    }
    let (mut together, mut alone) = (Vec::new(), Vec::new());
    for r in results {
        let Some(attempt) = attempts.get(&r.attempt_uuid) else {
            continue; // Not billing's: nothing to do, as on its own.
        };
        let common = invoices.get(&attempt.invoice_uuid).filter(|i| {
            attempt.status == AttemptStatus::Pending
                && i.status == Open
                && plain.contains(&i.subscription_uuid)
                && answers_per_invoice.get(i.uuid.as_str()) == Some(&1)
        });
        match common {
            Some(invoice) => together.push((r, attempt.clone(), invoice.clone())),
            None => alone.push(r),
        }
    }
    pay(db, outbox, now, together)?;
    for r in alone {
        apply_payment_result(db, outbox, now, r)?;
    }
    Ok(())
}

/// Ends each attempt as succeeded and its invoice as paid, and says so.
fn pay(
    db: &mut Db<'_>,
    outbox: &Outbox,
    now: i64,
    together: Vec<(&ChargeResult, ChargeAttempt, Invoice)>,
) -> Result<(), BillingError> {
    if together.is_empty() {
        return Ok(());
    }
    // The invoices are locked, and a payment's results come in its order, so each attempt
    // is still pending; one that is not was answered already, and nothing more follows.
    let ended = store::finish_attempts_succeeded(
        db,
        &together
            .iter()
            .map(|(r, attempt, _)| store::Succeeded {
                attempt: &attempt.uuid,
                reason: r.status_reason.as_deref(),
                payment: &r.payment_uuid,
            })
            .collect::<Vec<_>>(),
        now,
    )?;
    let mut finished = Vec::with_capacity(together.len());
    for (r, mut attempt, invoice) in together {
        if !ended.contains(&attempt.uuid) {
            continue;
        }
        attempt.status = AttemptStatus::Succeeded;
        attempt.status_reason = r.status_reason.clone();
        attempt.payment_uuid = Some(r.payment_uuid.clone());
        finished.push((attempt, invoice));
    }
    let paid: Vec<String> = finished.iter().map(|(_, i)| i.uuid.clone()).collect();
    if store::mark_paid(db, &paid, now)? != paid.len() {
        return Err(BillingError::ChangedMeanwhile(
            "The invoice changed meanwhile",
        ));
    }
    let mut attempts_of: HashMap<String, Vec<ChargeAttempt>> = HashMap::new();
    for a in store::attempts_of_many(db, &paid)? {
        attempts_of
            .entry(a.invoice_uuid.clone())
            .or_default()
            .push(a);
    }
    let mut announced = Vec::with_capacity(finished.len() * 2);
    for (attempt, mut invoice) in finished {
        let data = attempt.render(&invoice, None);
        announced.push(events::attempt_finished_event(
            outbox, &attempt, &invoice, true, data,
        )?);
        // As the statement above wrote it.
        state::pay(&mut invoice);
        let body = invoice.render(
            attempts_of
                .get(&invoice.uuid)
                .map_or(&[][..], Vec::as_slice),
        );
        announced.push(events::closed_event(outbox, &invoice, body)?);
    }
    append(db, &announced, None)?;
    Ok(())
}
