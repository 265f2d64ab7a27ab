//! Catching up the subscriptions that fell due: each charge date that has come is
//! invoiced and charged. The invoices of a batch are written together.

use std::collections::{HashMap, HashSet};

use coffer_events::{Outbox, append};
use coffer_store::Db;
use diesel::QueryResult;

use super::{Pass, in_batches};
use crate::invoices::domain::{ChargeAttempt, Invoice, charging};
use crate::invoices::store as invoices;
use crate::scheduler::domain::{CaughtUp, catch_up};
use crate::scheduler::events;
use crate::scheduler::store::{self, DUE};
use crate::subscriptions::domain::Subscription;
use crate::subscriptions::store as subscriptions;

/// Invoices every charge date that has come, batch by batch; how many subscriptions it
/// handled.
pub(super) fn invoice_due(db: &mut Db<'_>, pass: &Pass<'_>) -> QueryResult<usize> {
    let Pass { outbox, now, clock } = *pass;
    in_batches(db, |tx| {
        let due = store::claim(tx, &DUE, now, clock)?;
        let mut made = Vec::new();
        let mut by_uuid = HashMap::new();
        let mut moved_on = Vec::new();
        for mut s in subscriptions::find_many(tx, &due)? {
            let before = s.clone();
            catch_up_one(tx, outbox, &mut s, now, &mut made)?;
            // Most only move on to their next charge date: those are written together.
            let mut only_moved = before.clone();
            only_moved.next_due_date = s.next_due_date;
            match s.next_due_date {
                Some(next) if only_moved == s => moved_on.push((s.uuid.clone(), next)),
                _ => {
                    subscriptions::save(tx, &s, before.status, now)?;
                }
            }
            by_uuid.insert(s.uuid.clone(), s);
        }
        subscriptions::move_on(tx, &moved_on, now)?;
        write_invoices(tx, outbox, &by_uuid, &made, now)?;
        Ok((due.len(), due.len()))
    })
}

/// Catches one subscription up: its state changes are announced at once, its invoices
/// collected in `invoices` for [`write_invoices`].
fn catch_up_one(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    s: &mut Subscription,
    now: i64,
    invoices: &mut Vec<Invoice>,
) -> QueryResult<()> {
    for step in catch_up(s, now) {
        match step {
            CaughtUp::Ended(at) => {
                let body = subscriptions::rendered(tx, &at)?;
                events::ended(tx, outbox, &at, body)?;
            }
            CaughtUp::Resumed(at) => {
                let body = subscriptions::rendered(tx, &at)?;
                events::resumed(tx, outbox, &at, body)?;
            }
            CaughtUp::Due { period, due } => invoices.push(charging::draft(
                s,
                Some(period.format("%Y-%m-%d").to_string()),
                due,
                now,
            )),
        }
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
    let mut announced = Vec::new();
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
        announced.extend(events::invoiced(
            outbox,
            s,
            invoice,
            &attempt,
            s.render(&name),
        )?);
        attempts.push(attempt);
    }
    invoices::insert_attempts(tx, &attempts)?;
    append(tx, &announced, None)
}
