//! The scheduler: every few seconds it invoices the subscriptions that fell due and
//! starts their charge attempts, retries invoices whose next try has come, and ends
//! suspensions. Several replicas may run it at once: on PostgreSQL each claims its rows
//! with `FOR UPDATE SKIP LOCKED`, and a unique index allows one invoice per charge date, so
//! no charge date is invoiced twice.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use coffer_events::catalogue::{
    CHARGE_ATTEMPT_CREATED, INVOICE_CREATED, SUBSCRIPTION_ACTIVATED, SUBSCRIPTION_ENDED,
};
use coffer_events::{Outbox, append};
use coffer_model::clock::Clock;
use coffer_store::{Backend, Db, Store, StoreError, db_run};
use diesel::prelude::*;
use diesel::sql_types::Text;

use crate::announce::announce;
use crate::invoices::record::{ChargeAttempt, Invoice};
use crate::invoices::{charging, store as invoices};
use crate::schedule::{Schedule, due_instant, local_date};
use crate::subscriptions::record::Subscription;
use crate::subscriptions::store as subscriptions;
use crate::upcoming;

/// Subscriptions (or invoices) handled per transaction.
const BATCH: i64 = 1000;

/// Subscriptions whose plan announces charges ahead and whose next charge is near its
/// announcement. The day arithmetic is approximate (a day is not always 86,400 s in a
/// zone), so the query takes two hours more and [`upcoming::pass`] decides exactly.
const NEAR_THEIR_ANNOUNCEMENT: &str = "SELECT uuid FROM subscriptions \
     WHERE plan_uuid IN (SELECT uuid FROM subscription_plans WHERE notify_before_charge_days IS NOT NULL) \
     AND status IN ('active', 'suspended') AND next_due_date > {now} \
     AND (upcoming_announced IS NULL OR upcoming_announced <> next_due_date) \
     AND next_due_date - 86400 * (SELECT p.notify_before_charge_days FROM subscription_plans p \
         WHERE p.uuid = subscriptions.plan_uuid) - 7200 <= {now} \
     AND {scope} ORDER BY next_due_date";

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = Text)]
    uuid: String,
}

/// The next batch of rows `sql` selects, claimed for this transaction on PostgreSQL.
/// `{now}` in `sql` stands for `now`, and `{scope}` for the subscriptions of the pass: those
/// on the real clock, or those on one test clock.
fn claim(
    tx: &mut Db<'_>,
    sql: &str,
    now: Option<i64>,
    clock: Option<&str>,
) -> QueryResult<Vec<String>> {
    let lock = match tx.backend() {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let mut sql = format!("{sql} LIMIT {BATCH}{lock}");
    let mut n = 0;
    if now.is_some() {
        n += 1;
        sql = sql.replace("{now}", &format!("${n}"));
    }
    let scope = match clock {
        Some(_) => {
            n += 1;
            format!("test_clock_uuid = ${n}")
        }
        None => "test_clock_uuid IS NULL".to_owned(),
    };
    sql = sql.replace("{scope}", &scope);
    let ids: Vec<Id> = db_run!(tx: {
        let mut q = diesel::sql_query(&sql).into_boxed();
        if let Some(now) = now {
            q = q.bind::<diesel::sql_types::BigInt, _>(now);
        }
        if let Some(clock) = clock {
            q = q.bind::<Text, _>(clock.to_owned());
        }
        q.load(tx)
    })?;
    Ok(ids.into_iter().map(|i| i.uuid).collect())
}

/// Invoices every charge date of `s` that has come, in order; skips those inside a
/// suspension, resumes at its end, and ends the subscription after `planned_end`.
/// The invoices a pass makes are collected in `invoices` and written together
/// ([`write_invoices`]); the rare state changes are written at once.
fn catch_up(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    s: &mut Subscription,
    now: i64,
    invoices: &mut Vec<Invoice>,
) -> QueryResult<()> {
    let (org, account) = (s.organisation_uuid.clone(), s.account_uuid.clone());
    while let Some(due) = s.next_due_date.filter(|d| *d <= now) {
        let period = local_date(s.zone, due);
        if s.planned_end.is_some_and(|end| period > end) {
            s.status = "ended".into();
            s.ended_at = Some(now);
            s.next_due_date = None;
            let body = subscriptions::rendered(tx, s)?;
            announce(
                tx,
                outbox,
                &SUBSCRIPTION_ENDED,
                (&s.uuid, &org, &account),
                body,
                None,
            )?;
            break;
        }
        let mut skip = false;
        if s.status == "suspended" {
            if s.suspension_end.is_some_and(|end| period >= end) {
                resume(tx, outbox, s)?;
            } else if s.suspension_start.is_some_and(|start| period >= start) {
                skip = true;
            }
        }
        if !skip {
            invoices.push(charging::draft(
                s,
                Some(period.format("%Y-%m-%d").to_string()),
                due,
                now,
            ));
        }
        let schedule = Schedule {
            interval: s.interval.clone(),
            anchor: s.anchor_date,
        };
        s.next_due_date = schedule.after(period).map(|d| due_instant(s.zone, d));
    }
    Ok(())
}

/// Writes a pass's invoices and their charge attempts, with their events, in a few
/// multi-row statements: a pass over hundreds of subscriptions costs a handful of round
/// trips rather than several per subscription. An invoice whose charge date has one
/// already (another scheduler was first) is left out, with its attempt.
fn write_invoices(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    subscriptions_by_uuid: &HashMap<String, Subscription>,
    invoices: &[Invoice],
    now: i64,
) -> QueryResult<()> {
    if invoices.is_empty() {
        return Ok(());
    }
    let made: HashSet<String> = invoices::insert_invoices(tx, invoices)?
        .into_iter()
        .collect();
    let mut plan_names: HashMap<String, String> = HashMap::new();
    let mut attempts = Vec::new();
    let mut events = Vec::new();
    let id = |u: &str| -> QueryResult<uuid::Uuid> {
        u.parse()
            .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))
    };
    for invoice in invoices.iter().filter(|i| made.contains(&i.uuid)) {
        let Some(s) = subscriptions_by_uuid.get(&invoice.subscription_uuid) else {
            continue;
        };
        let name = match plan_names.get(&s.plan_uuid) {
            Some(name) => name.clone(),
            None => {
                let body = subscriptions::rendered(tx, s)?;
                let name = body["subscription_plan"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                plan_names.insert(s.plan_uuid.clone(), name.clone());
                name
            }
        };
        let attempt = ChargeAttempt::pending(invoice, now);
        let (org, account) = (
            s.organisation_uuid.parse().ok(),
            s.account_uuid.parse().ok(),
        );
        events.push(outbox.event(
            &INVOICE_CREATED,
            id(&invoice.uuid)?,
            org,
            account,
            invoice.render(&[]),
        ));
        events.push(outbox.event(
            &CHARGE_ATTEMPT_CREATED,
            id(&attempt.uuid)?,
            org,
            account,
            attempt.render(invoice, Some(s.render(&name))),
        ));
        attempts.push(attempt);
    }
    invoices::insert_attempts(tx, &attempts)?;
    append(tx, &events, None)
}

/// A suspension that has reached its end: active again, announced.
fn resume(tx: &mut Db<'_>, outbox: &Outbox, s: &mut Subscription) -> QueryResult<()> {
    s.status = "active".into();
    s.suspension_start = None;
    s.suspension_end = None;
    let body = subscriptions::rendered(tx, s)?;
    let (org, account) = (s.organisation_uuid.clone(), s.account_uuid.clone());
    announce(
        tx,
        outbox,
        &SUBSCRIPTION_ACTIVATED,
        (&s.uuid, &org, &account),
        body,
        None,
    )
}

/// One pass over the real clock's subscriptions (`clock` none) or one test clock's;
/// how many subscriptions and invoices it handled.
pub fn tick(db: &mut Db<'_>, outbox: &Outbox, now: i64, clock: Option<&str>) -> QueryResult<usize> {
    let mut handled = 0;
    // Charges to announce ahead come first: at a moment when a charge is both announced
    // and due, the announcement still precedes it.
    loop {
        let (claimed, made) = db.write_tx(|tx| {
            let near = claim(tx, NEAR_THEIR_ANNOUNCEMENT, Some(now), clock)?;
            let made = upcoming::pass(tx, outbox, now, &near)?;
            Ok::<_, diesel::result::Error>((near.len(), made))
        })?;
        handled += made;
        // A full batch with nothing to announce holds only charges still a little early.
        if claimed < usize::try_from(BATCH).unwrap_or(usize::MAX) || made == 0 {
            break;
        }
    }
    loop {
        let n = db.write_tx(|tx| {
            let due = claim(
                tx,
                "SELECT uuid FROM subscriptions WHERE status IN ('active', 'suspended') \
                 AND next_due_date <= {now} AND {scope} ORDER BY next_due_date",
                Some(now),
                clock,
            )?;
            let mut made = Vec::new();
            let mut by_uuid = HashMap::new();
            let mut moved_on = Vec::new();
            for mut s in subscriptions::find_many(tx, &due)? {
                let before = s.clone();
                catch_up(tx, outbox, &mut s, now, &mut made)?;
                // Most only move on to their next charge date: those are written together.
                let mut only_moved = before.clone();
                only_moved.next_due_date = s.next_due_date;
                match s.next_due_date {
                    Some(next) if only_moved == s => moved_on.push((s.uuid.clone(), next)),
                    _ => {
                        subscriptions::save(tx, &s, &before.status, now)?;
                    }
                }
                by_uuid.insert(s.uuid.clone(), s);
            }
            subscriptions::move_on(tx, &moved_on, now)?;
            write_invoices(tx, outbox, &by_uuid, &made, now)?;
            Ok::<_, diesel::result::Error>(due.len())
        })?;
        handled += n;
        if n < usize::try_from(BATCH).unwrap_or(usize::MAX) {
            break;
        }
    }
    // Retries whose day has come.
    loop {
        let n = db.write_tx(|tx| {
            let due = claim(
                tx,
                "SELECT uuid FROM invoices WHERE status = 'open' AND next_attempt_date <= {now} \
             AND subscription_uuid IN (SELECT uuid FROM subscriptions WHERE {scope}) \
             ORDER BY next_attempt_date",
                Some(now),
                clock,
            )?;
            for uuid in &due {
                let Some(mut invoice) = invoices::find_invoice(tx, uuid)? else {
                    continue;
                };
                let Some(s) = subscriptions::find(tx, &invoice.subscription_uuid)? else {
                    continue;
                };
                let body = subscriptions::rendered(tx, &s)?;
                charging::start(tx, outbox, &s, body, &invoice, now, None)?;
                invoice.next_attempt_date = None;
                invoices::save_invoice(tx, &invoice, "open", now)?;
            }
            Ok::<_, diesel::result::Error>(due.len())
        })?;
        handled += n;
        if n < usize::try_from(BATCH).unwrap_or(usize::MAX) {
            break;
        }
    }
    // Suspensions that ended between charge dates.
    handled += db.write_tx(|tx| {
        let suspended = claim(
            tx,
            "SELECT uuid FROM subscriptions WHERE status = 'suspended' \
             AND suspension_end IS NOT NULL AND {scope}",
            None,
            clock,
        )?;
        let mut resumed = 0;
        for uuid in &suspended {
            let Some(mut s) = subscriptions::find(tx, uuid)? else {
                continue;
            };
            let today = local_date(s.zone, now);
            if s.suspension_end.is_some_and(|end| end <= today) {
                resume(tx, outbox, &mut s)?;
                subscriptions::save(tx, &s, "suspended", now)?;
                resumed += 1;
            }
        }
        Ok::<_, diesel::result::Error>(resumed)
    })?;
    Ok(handled)
}

/// Runs [`tick`] every `every`, for as long as the service runs. On PostgreSQL `workers`
/// passes run side by side, each on its own connection: their claims skip each other's
/// rows, so a large pass is shared among them the way it is among replicas, and uses more
/// than one core of the database. SQLite has one writer, so it runs one.
pub async fn run_forever(
    store: Store,
    outbox: Outbox,
    clock: Arc<dyn Clock>,
    every: Duration,
    workers: usize,
) {
    let workers = match store.backend() {
        Backend::Postgres => workers.max(1),
        Backend::Sqlite => 1,
    };
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let now = clock.unix();
        let passes: Vec<_> = (0..workers)
            .map(|_| {
                let (store, out) = (store.clone(), outbox.clone());
                tokio::spawn(async move {
                    store
                        .run(move |db| tick(db, &out, now, None).map_err(StoreError::from))
                        .await
                })
            })
            .collect();
        let mut handled = 0;
        for pass in passes {
            match pass.await {
                Ok(Ok(n)) => handled += n,
                Ok(Err(e)) => tracing::warn!(error = %e, "billing scheduler pass failed; retrying"),
                Err(e) => tracing::warn!(error = %e, "billing scheduler pass stopped"),
            }
        }
        if handled > 0 {
            tracing::debug!(handled, "billing scheduler pass");
            outbox.committed();
        }
    }
}
