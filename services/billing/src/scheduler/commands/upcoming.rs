//! Announcing a charge ahead: a plan with `notify_before_charge_days: N` has each of its
//! subscriptions' charges announced as `subscriptions.invoice.upcoming` at local midnight
//! N days before the charge date, once per charge date, so that the charity can tell its
//! supporter. Coffer sends no message itself (docs/billing.md, "Notifications").

use coffer_events::Outbox;
use coffer_store::Db;
use diesel::QueryResult;

use crate::plans::domain::GLOBAL_UUID;
use crate::plans::store as plans;
use crate::schedule::local_date;
use crate::scheduler::domain::{announce_at, will_charge};
use crate::scheduler::{events, store};
use crate::subscriptions::domain::Subscription;
use crate::subscriptions::store as subscriptions;

/// The days ahead a subscription's plan announces its charges; none when it does not.
fn days_ahead(db: &mut Db<'_>, s: &Subscription) -> QueryResult<Option<u32>> {
    if s.plan_uuid == GLOBAL_UUID {
        return Ok(None);
    }
    Ok(plans::find(db, &s.plan_uuid)?
        .and_then(|p| p.notification_configuration.notify_before_charge_days))
}

/// The moment the next charge of `s` is to be announced, if it has one still to come:
/// for a test clock's advance, which steps to every such moment.
pub(crate) fn moment(db: &mut Db<'_>, s: &Subscription) -> QueryResult<Option<i64>> {
    let Some(due) = s.next_due_date else {
        return Ok(None);
    };
    let Some(days) = days_ahead(db, s)? else {
        return Ok(None);
    };
    let done = store::announced(db, std::slice::from_ref(&s.uuid))?
        .first()
        .and_then(|(_, at)| *at);
    Ok((done != Some(due)).then(|| announce_at(s.zone, due, days)))
}

/// Announces the charges of `candidates` whose day for it has come (the claim picks them
/// approximately). How many it announced.
pub(super) fn announce_due(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    now: i64,
    candidates: &[String],
) -> QueryResult<usize> {
    let marks = store::announced(tx, candidates)?;
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
            let body = subscriptions::rendered(tx, &s)?;
            events::upcoming(tx, outbox, &s, body, due)?;
            made += 1;
        }
        store::mark(tx, &s.uuid, due)?;
    }
    Ok(made)
}
