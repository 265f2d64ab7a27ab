//! What follows a failed charge: another try a number of days after the invoice's due
//! date, or giving the invoice up; and after too many invoices given up in a row, the
//! subscription. Pure.

use chrono::{Days, NaiveDate};

use crate::plans::domain::Dunning;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailure {
    /// Try again on this local date.
    RetryOn(NaiveDate),
    /// No retries left: cancel the invoice; `cancel_subscription` when the plan's limit of
    /// failed invoices in a row is reached.
    GiveUp { cancel_subscription: bool },
}

/// `failed` counts the attempts that failed so far (this one included); `due` is the
/// invoice's local due date; `failed_invoices` the invoices given up in a row before this.
pub fn after_failure(
    plan: &Dunning,
    due: NaiveDate,
    failed: u32,
    failed_invoices: u32,
) -> AfterFailure {
    let retry = usize::try_from(failed).ok().and_then(|n| n.checked_sub(1));
    match retry.and_then(|i| plan.retry_after_days.get(i)) {
        Some(days) => AfterFailure::RetryOn(
            due.checked_add_days(Days::new(u64::from(*days)))
                .unwrap_or(due),
        ),
        None => AfterFailure::GiveUp {
            cancel_subscription: failed_invoices + 1
                >= plan.cancel_subscription_after_failed_invoices,
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn retries_follow_the_due_date_then_the_invoice_and_subscription_give_up() {
        let plan = Dunning::default();
        let due = NaiveDate::from_ymd_opt(2026, 1, 31).unwrap();
        let on = |d| AfterFailure::RetryOn(NaiveDate::from_ymd_opt(2026, 2, d).unwrap());
        assert_eq!(after_failure(&plan, due, 1, 0), on(2));
        assert_eq!(after_failure(&plan, due, 2, 0), on(4));
        assert_eq!(after_failure(&plan, due, 3, 0), on(6));
        assert_eq!(
            after_failure(&plan, due, 4, 0),
            AfterFailure::GiveUp {
                cancel_subscription: false
            }
        );
        assert_eq!(
            after_failure(&plan, due, 4, 2),
            AfterFailure::GiveUp {
                cancel_subscription: true
            }
        );
    }
}
