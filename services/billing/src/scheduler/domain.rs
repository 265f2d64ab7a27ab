//! What the scheduler decides, pure: the charge dates of a subscription that have come
//! (skipping a suspension, resuming at its end, ending after the planned end), and when a
//! charge is announced ahead.

use chrono::{Days, NaiveDate};
use coffer_model::zone::Tz;

use crate::schedule::{Schedule, due_instant, local_date};
use crate::subscriptions::domain::Subscription;
use crate::subscriptions::domain::SubscriptionStatus::{Active, Ended, Pending, Suspended};

/// What catching a subscription up did, in order. A state change carries the
/// subscription as it was at that moment, which is what its announcement shows.
#[derive(Debug, Clone, PartialEq)]
pub enum CaughtUp {
    /// Its suspension reached its end: active again.
    Resumed(Box<Subscription>),
    /// A charge date after its planned end came: it ended.
    Ended(Box<Subscription>),
    /// A charge date to invoice.
    Due { period: NaiveDate, due: i64 },
}

/// A suspension that has reached its end: active again.
pub fn resume(s: &mut Subscription) {
    s.status = Active;
    s.suspension_start = None;
    s.suspension_end = None;
}

/// Every charge date of `s` that has come by `now`, in order; skips those inside a
/// suspension, resumes at its end, and ends the subscription after `planned_end`.
pub fn catch_up(s: &mut Subscription, now: i64) -> Vec<CaughtUp> {
    let mut steps = Vec::new();
    while let Some(due) = s.next_due_date.filter(|d| *d <= now) {
        let period = local_date(s.zone, due);
        if s.planned_end.is_some_and(|end| period > end) {
            s.status = Ended;
            s.ended_at = Some(now);
            s.next_due_date = None;
            steps.push(CaughtUp::Ended(Box::new(s.clone())));
            break;
        }
        let mut skip = false;
        if s.status == Suspended {
            if s.suspension_end.is_some_and(|end| period >= end) {
                resume(s);
                steps.push(CaughtUp::Resumed(Box::new(s.clone())));
            } else if s.suspension_start.is_some_and(|start| period >= start) {
                skip = true;
            }
        }
        if !skip {
            steps.push(CaughtUp::Due { period, due });
        }
        let schedule = Schedule {
            interval: s.interval.clone(),
            anchor: s.anchor_date,
        };
        s.next_due_date = schedule.after(period).map(|d| due_instant(s.zone, d));
    }
    steps
}

/// When the charge at `due` is announced: local midnight `days` before its local date.
pub fn announce_at(zone: Tz, due: i64, days: u32) -> i64 {
    let date = local_date(zone, due);
    due_instant(
        zone,
        date.checked_sub_days(Days::new(u64::from(days)))
            .unwrap_or(date),
    )
}

/// Whether the charge date `period` will be charged as things stand: not inside a
/// suspension and not after the planned end. A charge that will not happen is not
/// announced.
pub fn will_charge(s: &Subscription, period: NaiveDate) -> bool {
    let suspended = s.status == Suspended
        && s.suspension_start.is_some_and(|start| period >= start)
        && s.suspension_end.is_none_or(|end| period < end);
    let ended = s.planned_end.is_some_and(|end| period > end);
    s.status != Pending && !suspended && !ended
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn announced_at_local_midnight_days_before_across_a_clock_change() {
        let zurich: Tz = "Europe/Zurich".parse().unwrap();
        // Charged 1 April 2026 (after the change on 29 March); announced 3 days before,
        // on 29 March at local midnight, which is still winter time (UTC+1).
        let due = due_instant(zurich, NaiveDate::from_ymd_opt(2026, 4, 1).unwrap());
        let at = announce_at(zurich, due, 3);
        assert_eq!(
            at,
            due_instant(zurich, NaiveDate::from_ymd_opt(2026, 3, 29).unwrap())
        );
        assert_eq!(due - at, 3 * 86_400 - 3_600);
    }
}
