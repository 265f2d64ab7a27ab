//! The scheduler on a test clock: the moments at which something falls due on it, its pass
//! at each of them, and what payments has yet to answer, for the advance of a test clock
//! (workers/test_clocks.rs) to move from one to the next.

use coffer_store::Db;
use diesel::QueryResult;

use super::upcoming;
use crate::invoices::store as invoices;
use crate::schedule::due_instant;
use crate::subscriptions::domain::SubscriptionStatus;
use crate::subscriptions::store as subscriptions;
use crate::test_clocks::store as test_clocks;

/// The first moment after `from` and not after `to` at which something falls due on the
/// clock: a charge date, a retry, the end of a suspension, a charge's announcement.
pub(crate) fn next_moment(
    db: &mut Db<'_>,
    clock: &str,
    from: i64,
    to: i64,
) -> QueryResult<Option<i64>> {
    let mut moments = Vec::new();
    for s in subscriptions::on_clock(db, clock)? {
        if s.status.is_scheduled() {
            moments.extend(s.next_due_date);
            moments.extend(upcoming::moment(db, &s)?);
        }
        if s.status == SubscriptionStatus::Suspended {
            moments.extend(s.suspension_end.map(|d| due_instant(s.zone, d)));
        }
        moments.extend(invoices::retry_dates_of(db, &s.uuid)?);
    }
    Ok(moments.into_iter().filter(|m| *m > from && *m <= to).min())
}

/// How many charge attempts of the clock's subscriptions payments has yet to answer.
pub(crate) fn pending_attempts(db: &mut Db<'_>, clock: &str) -> QueryResult<i64> {
    let uuids: Vec<String> = subscriptions::on_clock(db, clock)?
        .into_iter()
        .map(|s| s.uuid)
        .collect();
    invoices::pending_attempts_of(db, &uuids)
}

/// One step of an advance: the clock shows `moment`, and the scheduler's pass for the
/// clock runs at it.
pub(crate) fn step(
    db: &mut Db<'_>,
    outbox: &coffer_events::Outbox,
    clock: &str,
    moment: i64,
    now: i64,
) -> QueryResult<usize> {
    test_clocks::set_time(db, clock, moment, now)?;
    super::tick(db, outbox, moment, Some(clock))
}
