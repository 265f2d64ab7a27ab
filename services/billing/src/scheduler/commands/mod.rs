//! The scheduler's passes, for the scheduler worker and a test clock's advance alike. Each
//! pass is a loop of short transactions over claimed batches.

mod catch_up;
pub(crate) mod on_clock;
pub(crate) mod upcoming;

use coffer_events::Outbox;
use coffer_store::Db;
use diesel::QueryResult;

use super::domain::resume;
use super::events;
use super::store::{self, BATCH, NEAR_THEIR_ANNOUNCEMENT, RETRIES, SUSPENDED_UNTIL};
use crate::invoices::commands::start_attempt;
use crate::invoices::domain::InvoiceStatus;
use crate::invoices::store as invoices;
use crate::schedule::local_date;
use crate::subscriptions::domain::SubscriptionStatus;
use crate::subscriptions::store as subscriptions;

/// Runs `batch` in one short transaction after another, while each claims a full batch
/// and handles something of it; `batch` answers how many rows it claimed and how many it
/// handled. How many were handled in all.
fn in_batches(
    db: &mut Db<'_>,
    mut batch: impl FnMut(&mut Db<'_>) -> QueryResult<(usize, usize)>,
) -> QueryResult<usize> {
    let full = usize::try_from(BATCH).unwrap_or(usize::MAX);
    let mut handled = 0;
    loop {
        let (claimed, made) = db.write_tx(&mut batch)?;
        handled += made;
        // A full batch with nothing handled (charges still a little early to announce)
        // would be claimed again as it is.
        if claimed < full || made == 0 {
            return Ok(handled);
        }
    }
}

/// What every step of a pass shares: where its events go, its moment, and its scope (the
/// real clock's subscriptions, or one test clock's).
struct Pass<'a> {
    outbox: &'a Outbox,
    now: i64,
    clock: Option<&'a str>,
}

/// One pass over the real clock's subscriptions (`clock` none) or one test clock's;
/// how many subscriptions and invoices it handled.
pub fn tick(db: &mut Db<'_>, outbox: &Outbox, now: i64, clock: Option<&str>) -> QueryResult<usize> {
    let pass = Pass { outbox, now, clock };
    // Charges to announce ahead come first: at a moment when a charge is both announced
    // and due, the announcement still precedes it.
    let mut handled = announce_upcoming(db, &pass)?;
    handled += catch_up::invoice_due(db, &pass)?;
    handled += retry_due(db, &pass)?;
    handled += end_suspensions(db, &pass)?;
    Ok(handled)
}

fn announce_upcoming(db: &mut Db<'_>, pass: &Pass<'_>) -> QueryResult<usize> {
    let Pass { outbox, now, clock } = *pass;
    // Most charities announce nothing ahead: then no subscription is looked at at all,
    // whatever the planner would make of the join on a table whose statistics lag.
    if !store::any_plan_announces(db)? {
        return Ok(0);
    }
    in_batches(db, |tx| {
        let near = store::claim(tx, &NEAR_THEIR_ANNOUNCEMENT, now, clock)?;
        let made = upcoming::announce_due(tx, outbox, now, &near)?;
        Ok((near.len(), made))
    })
}

/// Retries whose day has come: a new charge attempt each.
fn retry_due(db: &mut Db<'_>, pass: &Pass<'_>) -> QueryResult<usize> {
    let Pass { outbox, now, clock } = *pass;
    in_batches(db, |tx| {
        let due = store::claim(tx, &RETRIES, now, clock)?;
        for uuid in &due {
            // Locked and judged as it is now: an invoice closed by hand since it was
            // selected takes no attempt (closing means no charge).
            let Some(mut invoice) = invoices::find_invoice_locked(tx, uuid)? else {
                continue;
            };
            if invoice.status != InvoiceStatus::Open {
                continue;
            }
            let Some(s) = subscriptions::find_locked(tx, &invoice.subscription_uuid)? else {
                continue;
            };
            // A cancelled subscription's open invoices are tried no more; they stay open
            // for the charity to close.
            if s.status.takes_charge_attempts() {
                let body = subscriptions::rendered(tx, &s)?;
                start_attempt(tx, outbox, body, &invoice, now, None)?;
            }
            invoice.next_attempt_date = None;
            invoices::save_invoice(tx, &invoice, InvoiceStatus::Open, now)?;
        }
        Ok((due.len(), due.len()))
    })
}

/// Suspensions that ended between charge dates.
fn end_suspensions(db: &mut Db<'_>, pass: &Pass<'_>) -> QueryResult<usize> {
    let Pass { outbox, now, clock } = *pass;
    db.write_tx(|tx| {
        let suspended = store::claim(tx, &SUSPENDED_UNTIL, now, clock)?;
        let mut resumed = 0;
        for uuid in &suspended {
            let Some(mut s) = subscriptions::find(tx, uuid)? else {
                continue;
            };
            let today = local_date(s.zone, now);
            if s.suspension_end.is_some_and(|end| end <= today) {
                resume(&mut s);
                let body = subscriptions::rendered(tx, &s)?;
                events::resumed(tx, outbox, &s, body)?;
                subscriptions::save(tx, &s, SubscriptionStatus::Suspended, now)?;
                resumed += 1;
            }
        }
        Ok(resumed)
    })
}
