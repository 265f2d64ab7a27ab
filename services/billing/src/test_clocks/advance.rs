//! Advancing a test clock: step by step to each moment something falls due on it (a charge
//! date, a retry, the end of a suspension, a charge's announcement), run the scheduler's pass for that clock at that
//! moment, and wait until payments has answered its charge attempts, so that every
//! invoice, charge, retry, suspension end and cancellation happens in order.

use std::sync::Arc;
use std::time::Duration;

use coffer_events::Outbox;
use coffer_model::clock::Clock;
use coffer_store::{Db, Store, StoreError, db_run};
use diesel::prelude::*;

use super::store;
use crate::schedule::due_instant;
use crate::scheduler;
use crate::schema::{charge_attempts::dsl as a, invoices::dsl as i};
use crate::subscriptions::store as subscriptions;
use crate::upcoming;

/// How long one step waits for payments to answer its charges (a direct debit, for one,
/// stays pending until the bank collects it).
const ANSWER_WAIT: Duration = Duration::from_secs(10);

/// The first moment after `from` and not after `to` at which something falls due on the
/// clock.
fn next_moment(db: &mut Db<'_>, clock: &str, from: i64, to: i64) -> QueryResult<Option<i64>> {
    let mut moments = Vec::new();
    for s in subscriptions::on_clock(db, clock)? {
        if matches!(s.status.as_str(), "active" | "suspended") {
            moments.extend(s.next_due_date);
            moments.extend(upcoming::moment(db, &s)?);
        }
        if s.status == "suspended" {
            moments.extend(s.suspension_end.map(|d| due_instant(s.zone, d)));
        }
        let retries: Vec<Option<i64>> = db_run!(db: {
            i::invoices
                .filter(i::subscription_uuid.eq(&s.uuid))
                .filter(i::status.eq("open"))
                .select(i::next_attempt_date)
                .load(db)
        })?;
        moments.extend(retries.into_iter().flatten());
    }
    Ok(moments.into_iter().filter(|m| *m > from && *m <= to).min())
}

fn pending_attempts(db: &mut Db<'_>, clock: &str) -> QueryResult<i64> {
    let uuids: Vec<String> = subscriptions::on_clock(db, clock)?
        .into_iter()
        .map(|s| s.uuid)
        .collect();
    db_run!(db: {
        a::charge_attempts
            .filter(a::subscription_uuid.eq_any(&uuids))
            .filter(a::status.eq("pending"))
            .count()
            .get_result(db)
    })
}

/// Runs an advance the clock has begun (status advancing, target set) to its end.
pub async fn run(
    store: Store,
    outbox: Outbox,
    real: Arc<dyn Clock>,
    clock: String,
) -> Result<(), StoreError> {
    let id = clock.clone();
    let Some(start) = store.query(move |db| store::find(db, &id)).await? else {
        return Ok(());
    };
    let target = start.target_time.unwrap_or(start.frozen_time);
    let mut at = start.frozen_time;
    // Whatever is due by the clock's present comes first (a subscription made just now).
    let mut first = true;
    loop {
        // Each step is its own short transactions; between them other writers go first,
        // and a clock deleted meanwhile stops here.
        tokio::task::yield_now().await;
        let id = clock.clone();
        if store.query(move |db| store::find(db, &id)).await?.is_none() {
            return Ok(());
        }
        let (id, from) = (clock.clone(), if first { i64::MIN } else { at });
        first = false;
        let next = store
            .query(move |db| next_moment(db, &id, from, target))
            .await?;
        let Some(moment) = next.map(|m| m.max(at)) else {
            break;
        };
        at = moment;
        let (id, out, now) = (clock.clone(), outbox.clone(), real.unix());
        store
            .run(move |db| {
                store::set_time(db, &id, moment, now)?;
                scheduler::tick(db, &out, moment, Some(&id)).map_err(StoreError::from)
            })
            .await?;
        outbox.committed();
        let waited = tokio::time::Instant::now();
        loop {
            let id = clock.clone();
            if store.query(move |db| pending_attempts(db, &id)).await? == 0
                || waited.elapsed() > ANSWER_WAIT
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let (id, now) = (clock.clone(), real.unix());
    store
        .query(move |db| {
            store::set_time(db, &id, target, now)?;
            store::finish(db, &id, now)
        })
        .await
}
