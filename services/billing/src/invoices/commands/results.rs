//! What a charge attempt's payment did, as payments announces it (`payment_gateway.payment.*`
//! with `charge_attempt_uuid`): the attempt ends, and the invoice is paid, retried later or
//! given up; after too many invoices given up in a row, the subscription is cancelled
//! (docs/billing.md). Applied once per event, in the consumer's transaction.

use coffer_events::Outbox;
use coffer_events::catalogue::SUBSCRIPTION_CANCELLED;
use coffer_store::Db;

use crate::error::BillingError;
use crate::invoices::domain::AttemptStatus;
use crate::invoices::domain::InvoiceStatus::Open;
use crate::invoices::domain::dunning::{AfterFailure, after_failure};
use crate::invoices::domain::state as invoice_state;
use crate::invoices::events::{self, ChargeResult};
use crate::invoices::store;
use crate::plans::domain::{GLOBAL_UUID, global};
use crate::schedule::{due_instant, local_date};
use crate::subscriptions::domain::{SubscriptionStatus, state};
use crate::subscriptions::events::announce_change;
use crate::subscriptions::store as subscriptions;

/// Applies a payment result.
pub(crate) fn apply_payment_result(
    db: &mut Db<'_>,
    outbox: &Outbox,
    now: i64,
    result: &ChargeResult,
) -> Result<(), BillingError> {
    let succeeded = result.succeeded;
    let Some(attempt) = store::find_attempt(db, &result.attempt_uuid)? else {
        return Ok(());
    };
    // The invoice is locked before its attempt is touched, in the order Create Charge
    // Attempt takes them too, so neither waits on the other in a circle.
    let Some(mut invoice) = store::find_invoice_locked(db, &attempt.invoice_uuid)? else {
        return Ok(());
    };
    let (payment, reason) = (&result.payment_uuid, result.status_reason.as_deref());
    let status = if succeeded {
        AttemptStatus::Succeeded
    } else {
        AttemptStatus::Failed
    };
    if !store::finish_attempt(db, &attempt.uuid, status, reason, payment, now)? {
        return Ok(());
    }
    // A failure changes the subscription (its count of failed invoices, perhaps its
    // state), so it is read locked; a success changes it only when that count was not 0
    // already, which is rare, so most successes leave the row alone and unlocked.
    let read = if succeeded {
        subscriptions::find
    } else {
        subscriptions::find_locked
    };
    let Some(mut s) = read(db, &invoice.subscription_uuid)? else {
        return Ok(());
    };
    // A subscription on a test clock lives in the clock's time.
    let now = crate::test_clocks::store::time_of(db, s.test_clock_uuid.as_deref(), now)?;
    let finished = store::find_attempt(db, &attempt.uuid)?.unwrap_or(attempt);
    let plan = if s.plan_uuid == GLOBAL_UUID {
        global()
    } else {
        crate::plans::store::find(db, &s.plan_uuid)?.unwrap_or_else(global)
    };
    let mut data = finished.render(&invoice, None);
    if !succeeded {
        // The plan's word on whether the charity tells its supporter (docs/billing.md).
        data["notify_supporter"] = plan
            .notification_configuration
            .notify_on_failed_attempt
            .into();
    }
    events::attempt_finished(db, outbox, &finished, &invoice, succeeded, data)?;
    // An invoice closed by hand meanwhile keeps what it was closed as.
    if invoice.status != Open {
        return Ok(());
    }
    let subscription_status = s.status;
    let failed_before = s.consecutive_failed_invoices;
    if succeeded {
        invoice_state::pay(&mut invoice);
        s.consecutive_failed_invoices = 0;
    } else {
        invoice.failed_payment_attempts += 1;
        let due = local_date(s.zone, invoice.due_date);
        let failed_so_far = u32::try_from(invoice.failed_payment_attempts).unwrap_or(u32::MAX);
        let in_a_row = u32::try_from(s.consecutive_failed_invoices).unwrap_or(0);
        match after_failure(&plan.dunning_configuration, due, failed_so_far, in_a_row) {
            AfterFailure::RetryOn(date) => {
                invoice.next_attempt_date = Some(due_instant(s.zone, date).max(now))
            }
            AfterFailure::GiveUp {
                cancel_subscription,
            } => {
                invoice_state::fail(&mut invoice);
                s.consecutive_failed_invoices += 1;
                if cancel_subscription {
                    // Dunning's last word: already cancelled (by hand) stays as it is.
                    let _ = state::cancel(&mut s, now);
                }
            }
        }
    }
    if !store::save_invoice(db, &invoice, Open, now)? {
        return Err(BillingError::ChangedMeanwhile(
            "The invoice changed meanwhile",
        ));
    }
    let attempts = store::attempts_of(db, &invoice.uuid)?;
    if invoice.status != Open {
        events::closed(db, outbox, &invoice, invoice.render(&attempts), None)?;
    }
    if succeeded {
        if failed_before != 0 {
            // The count goes back to 0 on the row as it is now, locked.
            if let Some(mut fresh) = subscriptions::find_locked(db, &s.uuid)? {
                fresh.consecutive_failed_invoices = 0;
                let status = fresh.status;
                subscriptions::save(db, &fresh, status, now)?;
            }
        }
    } else if !subscriptions::save(db, &s, subscription_status, now)? {
        return Err(BillingError::ChangedMeanwhile(
            "The subscription changed meanwhile",
        ));
    }
    if s.status == SubscriptionStatus::Cancelled
        && subscription_status != SubscriptionStatus::Cancelled
    {
        let body = subscriptions::rendered(db, &s)?;
        announce_change(db, outbox, &SUBSCRIPTION_CANCELLED, &s, body, None)?;
    }
    Ok(())
}
