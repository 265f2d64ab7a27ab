//! Announcing a charge ahead: a plan with `notify_before_charge_days: N` has each of its
//! subscriptions' charges announced as `subscriptions.invoice.upcoming` at local midnight
//! N days before the charge date, once per charge date, so that the charity can tell its
//! supporter. Coffer sends no message itself (docs/billing.md, "Notifications").

use chrono::{Days, NaiveDate};
use coffer_events::Outbox;
use coffer_events::catalogue::INVOICE_UPCOMING;
use coffer_model::zone::Tz;
use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::announce::announce;
use crate::schedule::{due_instant, local_date};
use crate::schema::subscriptions::dsl as s;
use crate::subscriptions::record::Subscription;
use crate::subscriptions::store as subscriptions;

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
    let suspended = s.status == "suspended"
        && s.suspension_start.is_some_and(|start| period >= start)
        && s.suspension_end.is_none_or(|end| period < end);
    let ended = s.planned_end.is_some_and(|end| period > end);
    s.status != "pending" && !suspended && !ended
}

/// The days ahead a subscription's plan announces its charges; none when it does not.
fn days_ahead(db: &mut Db<'_>, s: &Subscription) -> QueryResult<Option<u32>> {
    if s.plan_uuid == crate::plans::domain::GLOBAL_UUID {
        return Ok(None);
    }
    Ok(crate::plans::store::find(db, &s.plan_uuid)?
        .and_then(|p| p.notification_configuration.notify_before_charge_days))
}

/// The charge date last announced for each of these subscriptions.
fn announced(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<(String, Option<i64>)>> {
    db_run!(db: {
        s::subscriptions
            .filter(s::uuid.eq_any(uuids))
            .select((s::uuid, s::upcoming_announced))
            .load(db)
    })
}

fn mark(db: &mut Db<'_>, uuid: &str, due: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(s::subscriptions.find(uuid))
            .set(s::upcoming_announced.eq(Some(due)))
            .execute(db)
            .map(drop)
    })
}

/// The moment the next charge of `s` is to be announced, if it has one still to come:
/// for a test clock's advance, which steps to every such moment.
pub fn moment(db: &mut Db<'_>, s: &Subscription) -> QueryResult<Option<i64>> {
    let Some(due) = s.next_due_date else {
        return Ok(None);
    };
    let Some(days) = days_ahead(db, s)? else {
        return Ok(None);
    };
    let done = announced(db, std::slice::from_ref(&s.uuid))?
        .first()
        .and_then(|(_, at)| *at);
    Ok((done != Some(due)).then(|| announce_at(s.zone, due, days)))
}

/// Announces the charges whose day for it has come; `claim` picks the candidates (see
/// the scheduler). How many it announced.
pub fn pass(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    now: i64,
    candidates: &[String],
) -> QueryResult<usize> {
    let marks = announced(tx, candidates)?;
    let mut made = 0;
    for s in subscriptions::find_many(tx, candidates)? {
        let Some(due) = s.next_due_date.filter(|due| *due > now) else {
            continue;
        };
        let Some(days) = days_ahead(tx, &s)? else {
            continue;
        };
        let done = marks
            .iter()
            .find(|(uuid, _)| *uuid == s.uuid)
            .and_then(|(_, at)| *at);
        if done == Some(due) || announce_at(s.zone, due, days) > now {
            continue;
        }
        if will_charge(&s, local_date(s.zone, due)) {
            let mut body = subscriptions::rendered(tx, &s)?;
            body["upcoming_due_date"] = due.into();
            announce(
                tx,
                outbox,
                &INVOICE_UPCOMING,
                (&s.uuid, &s.organisation_uuid, &s.account_uuid),
                body,
                None,
            )?;
            made += 1;
        }
        mark(tx, &s.uuid, due)?;
    }
    Ok(made)
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
