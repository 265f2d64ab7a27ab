//! Consumers: apply each event once, in its object's order, and set aside what cannot be
//! applied.
//!
//! Every delivery is handled in a transaction that first records `(consumer, event id)`
//! in the inbox. A redelivered event finds its id there and is skipped; a failed handler
//! rolls the inbox row back with its effects. The bus position is acknowledged only after
//! that transaction commits. A delivery that still fails after `max_attempts` goes to the
//! dead letters and the consumer moves on.
//!
//! Deliveries already waiting are taken together (up to [`BATCH`]) and split into lanes by
//! their message key, the object they are about: each lane is applied in a transaction of
//! its own, side by side with the others, so independent objects' events use every core
//! while one object's events stay in order in one lane. When a lane fails, the batch is
//! applied again one delivery at a time; what the other lanes committed is in the inbox
//! and is skipped, so nothing is applied twice.

use std::hash::Hasher;
use std::sync::Arc;
use std::time::Duration;

use coffer_model::clock::Clock;
use coffer_store::{Db, Store, StoreError, db_run};
use diesel::prelude::*;
use futures_util::FutureExt;
use tracing::Instrument;

use crate::bus::{Bus, BusError, Delivery, Subscription};
use crate::schema::inbox::dsl as i;
use crate::{Event, TraceContext};

#[derive(Debug, thiserror::Error)]
pub enum HandlerError {
    /// Worth another try (a conflict, a timeout).
    #[error("{0}")]
    Transient(String),
    /// Will never succeed (a payload the handler cannot read).
    #[error("{0}")]
    Permanent(String),
    #[error(transparent)]
    Query(#[from] diesel::result::Error),
}

impl HandlerError {
    /// A command's failure as a consumer's outcome: tried again when the command's own
    /// error type says the same work may succeed (never judged by an HTTP status).
    pub fn judged(error: impl std::fmt::Display, retryable: bool) -> Self {
        if retryable {
            HandlerError::Transient(error.to_string())
        } else {
            HandlerError::Permanent(error.to_string())
        }
    }
}

// Beside the error it answers with, so the envelope knows nothing of consumers.
impl Event {
    /// A text field of `data` a consumer cannot do without: missing, the event can never
    /// be applied, and a retry would not change that.
    pub fn text(&self, field: &str) -> Result<String, HandlerError> {
        self.data[field]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| HandlerError::Permanent(format!("{} has no {field}", self.name)))
    }
}

impl From<StoreError> for HandlerError {
    fn from(e: StoreError) -> Self {
        HandlerError::Transient(e.to_string())
    }
}

/// What a service does with an event, inside the consumer's transaction.
pub trait Handler: Send + Sync + 'static {
    /// Whether `event` can change anything here. An event it does not want is acknowledged
    /// without a transaction or an inbox row: ignoring it again, when it is redelivered,
    /// is as harmless as ignoring it once. A consumer reads whole topics, so most of what
    /// it reads may be events of no concern to it.
    fn wants(&self, _event: &Event) -> bool {
        true
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError>;

    /// Applies `events` (a lane's events not seen before, in their order) in one
    /// transaction. A handler that can do the work of many events in a few set-based
    /// statements overrides this; the effect must be that of handling each in turn.
    fn handle_many(&self, db: &mut Db<'_>, events: &[Event]) -> Result<(), HandlerError> {
        events.iter().try_for_each(|event| self.handle(db, event))
    }
}

#[derive(Debug, Clone)]
pub struct ConsumerSettings {
    /// Names the consumer group and the inbox rows; stable across releases.
    pub name: String,
    pub topics: Vec<String>,
    pub max_attempts: u32,
    /// Wait before the second attempt; doubles for each one after.
    pub retry_backoff: Duration,
    /// Transactions a batch is applied in side by side (1 applies it in order in one).
    pub lanes: usize,
}

pub struct Consumer {
    store: Store,
    bus: Arc<dyn Bus>,
    clock: Arc<dyn Clock>,
    handler: Arc<dyn Handler>,
    settings: ConsumerSettings,
}

enum Outcome {
    Applied,
    Duplicate,
}

impl Consumer {
    pub fn new(
        store: Store,
        bus: Arc<dyn Bus>,
        clock: Arc<dyn Clock>,
        handler: Arc<dyn Handler>,
        settings: ConsumerSettings,
    ) -> Self {
        Self {
            store,
            bus,
            clock,
            handler,
            settings,
        }
    }

    /// Consumes until the subscription fails; the caller restarts it.
    ///
    /// Deliveries that are already waiting are applied together, in one transaction; if
    /// that fails, each is applied on its own, so one bad event costs only itself.
    pub async fn run(&self) -> Result<(), BusError> {
        self.run_until(std::future::pending()).await
    }

    /// As [`Consumer::run`], until `shutdown` resolves; then the acknowledged positions
    /// are committed before it returns.
    pub async fn run_until(
        &self,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> Result<(), BusError> {
        let mut subscription = self
            .bus
            .subscribe(&self.settings.name, &self.settings.topics)
            .await?;
        tokio::pin!(shutdown);
        let result = loop {
            let first = tokio::select! {
                delivery = subscription.next() => delivery,
                () = &mut shutdown => break Ok(()),
            };
            let step = async {
                let mut batch = vec![first?];
                while batch.len() < BATCH {
                    match subscription.next().now_or_never() {
                        Some(delivery) => batch.push(delivery?),
                        None => break,
                    }
                }
                if batch.len() > 1 && self.apply_lanes(&batch).await {
                    for last in last_per_partition(&batch) {
                        subscription.ack(last).await?;
                    }
                    return Ok(());
                }
                for delivery in &batch {
                    self.process(&mut *subscription, delivery).await?;
                }
                Ok(())
            };
            // A batch in hand is finished before shutdown is looked at again.
            if let Err(e) = step.await {
                break Err(e);
            }
        };
        subscription.close().await;
        result
    }

    /// Applies every delivery of `batch`, each lane in its own transaction, side by side;
    /// false if any lane fails (the others may have committed).
    async fn apply_lanes(&self, batch: &[Delivery]) -> bool {
        let Ok(events) = batch
            .iter()
            .map(|d| Event::from_json(&d.message.payload))
            .collect::<Result<Vec<_>, _>>()
        else {
            return false;
        };
        let (events, keys): (Vec<Event>, Vec<&str>) = events
            .into_iter()
            .zip(batch.iter().map(|d| d.message.key.as_str()))
            .filter(|(event, _)| self.handler.wants(event))
            .unzip();
        let lanes = split_into_lanes(events, &keys, self.settings.lanes);
        let applied =
            futures_util::future::join_all(lanes.into_iter().map(|lane| self.apply_batch(lane)))
                .await;
        applied.into_iter().all(|ok| ok)
    }

    /// Applies `events` in order in one transaction; false if any of them fails (nothing
    /// is then applied).
    async fn apply_batch(&self, events: Vec<Event>) -> bool {
        let size = events.len();
        let handler = Arc::clone(&self.handler);
        let consumer = self.settings.name.clone();
        let now = self.clock.unix_ms();
        let result: Result<(), HandlerError> = self
            .store
            .run(move |db| {
                db.write_tx(|tx| {
                    let fresh = record_many(tx, &consumer, &events, now)?;
                    if fresh.len() == events.len() {
                        return handler.handle_many(tx, &events);
                    }
                    let fresh: Vec<Event> = fresh.into_iter().map(|n| events[n].clone()).collect();
                    handler.handle_many(tx, &fresh)
                })
            })
            .await;
        if let Err(e) = &result {
            tracing::debug!(error = %e, size, "batch failed; applying one by one");
        }
        result.is_ok()
    }

    /// Runs forever, resubscribing after bus errors.
    pub async fn run_forever(self: Arc<Self>) {
        loop {
            if let Err(e) = self.run().await {
                tracing::warn!(consumer = %self.settings.name, error = %e, "consumer stopped; resubscribing");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }

    async fn process(
        &self,
        subscription: &mut dyn Subscription,
        delivery: &Delivery,
    ) -> Result<(), BusError> {
        let trace = delivery
            .message
            .header("traceparent")
            .and_then(TraceContext::parse)
            .unwrap_or_else(TraceContext::new_root);
        let span = tracing::info_span!(
            "event",
            consumer = %self.settings.name,
            trace_id = %trace.trace_id,
            topic = %delivery.message.topic,
            offset = delivery.offset,
        );
        async {
            let event = match Event::from_json(&delivery.message.payload) {
                Ok(event) => event,
                Err(e) => return self.give_up(subscription, delivery, &format!("unreadable event: {e}")).await,
            };
            if !self.handler.wants(&event) {
                return subscription.ack(delivery).await;
            }
            let mut attempt = 0;
            loop {
                attempt += 1;
                match self.apply(&event).await {
                    Ok(Outcome::Applied) => {
                        tracing::debug!(event_id = %event.id, name = %event.name, "event applied");
                        break;
                    }
                    Ok(Outcome::Duplicate) => {
                        tracing::debug!(event_id = %event.id, "event already applied; skipped");
                        break;
                    }
                    Err(HandlerError::Permanent(reason)) => {
                        return self.give_up(subscription, delivery, &reason).await;
                    }
                    Err(e) if attempt >= self.settings.max_attempts => {
                        return self.give_up(subscription, delivery, &e.to_string()).await;
                    }
                    Err(e) => {
                        tracing::warn!(event_id = %event.id, attempt, error = %e, "event failed; retrying");
                        tokio::time::sleep(self.settings.retry_backoff * 2u32.pow(attempt - 1)).await;
                    }
                }
            }
            subscription.ack(delivery).await
        }
        .instrument(span)
        .await
    }

    async fn give_up(
        &self,
        subscription: &mut dyn Subscription,
        delivery: &Delivery,
        reason: &str,
    ) -> Result<(), BusError> {
        tracing::error!(reason, key = %delivery.message.key, "event dead-lettered");
        crate::metrics::count_dead_letter(&self.settings.name);
        self.bus
            .dead_letter(&self.settings.name, &delivery.message, reason)
            .await?;
        subscription.ack(delivery).await
    }

    async fn apply(&self, event: &Event) -> Result<Outcome, HandlerError> {
        let handler = Arc::clone(&self.handler);
        let consumer = self.settings.name.clone();
        let now = self.clock.unix_ms();
        let event = event.clone();
        self.store
            .run(move |db| {
                db.write_tx(|tx| {
                    if !record(tx, &consumer, &event.id.to_string(), now)? {
                        return Ok(Outcome::Duplicate);
                    }
                    handler.handle(tx, &event)?;
                    Ok(Outcome::Applied)
                })
            })
            .await
    }
}

/// Deliveries taken together at most.
const BATCH: usize = 200;

/// Splits `events` into at most `lanes` lanes by their keys (`keys[i]` is `events[i]`'s),
/// every key's events in one lane in their order; empty lanes are left out.
fn split_into_lanes(events: Vec<Event>, keys: &[&str], lanes: usize) -> Vec<Vec<Event>> {
    let lanes = lanes.max(1);
    let mut out: Vec<Vec<Event>> = (0..lanes).map(|_| Vec::new()).collect();
    for (event, key) in events.into_iter().zip(keys) {
        // FNV-1a: stable, and cheap next to a transaction.
        let mut hasher = fnv::FnvHasher::default();
        hasher.write(key.as_bytes());
        let hash = hasher.finish();
        let lane = usize::try_from(hash % lanes as u64).unwrap_or(0);
        out[lane].push(event);
    }
    out.retain(|lane| !lane.is_empty());
    out
}

/// The last delivery of each topic partition: acknowledging it covers those before it.
fn last_per_partition(batch: &[Delivery]) -> Vec<&Delivery> {
    let mut last: Vec<&Delivery> = Vec::new();
    for delivery in batch {
        match last.iter_mut().find(|d| {
            d.message.topic == delivery.message.topic && d.partition == delivery.partition
        }) {
            Some(slot) if slot.offset < delivery.offset => *slot = delivery,
            Some(_) => {}
            None => last.push(delivery),
        }
    }
    last
}

/// Records `events` in the inbox in one statement, and returns where those that were not
/// there already stand in `events`, in order (an event delivered twice in one batch counts
/// once). The insert itself says which rows are new, so no read of the inbox comes first
/// (such a read is planned badly while the table has no statistics yet).
fn record_many(
    db: &mut Db<'_>,
    consumer: &str,
    events: &[Event],
    now: i64,
) -> Result<Vec<usize>, HandlerError> {
    let ids: Vec<String> = events.iter().map(|e| e.id.to_string()).collect();
    let mut first = std::collections::HashSet::new();
    let rows: Vec<_> = ids
        .iter()
        .filter(|id| first.insert(id.as_str()))
        .map(|id| {
            (
                i::consumer.eq(consumer),
                i::event_id.eq(id),
                i::handled_ms.eq(now),
            )
        })
        .collect();
    let new: std::collections::HashSet<String> = db_run!(db: {
        diesel::insert_into(i::inbox)
            .values(&rows)
            .on_conflict_do_nothing()
            .returning(i::event_id)
            .get_results::<String>(db)
    })?
    .into_iter()
    .collect();
    let mut taken = std::collections::HashSet::new();
    Ok(ids
        .iter()
        .enumerate()
        .filter(|(_, id)| new.contains(id.as_str()) && taken.insert(id.as_str()))
        .map(|(n, _)| n)
        .collect())
}

/// Records the event in the inbox; false when it was there already.
fn record(db: &mut Db<'_>, consumer: &str, event_id: &str, now: i64) -> QueryResult<bool> {
    let inserted = db_run!(db: {
        diesel::insert_into(i::inbox)
            .values((i::consumer.eq(consumer), i::event_id.eq(event_id), i::handled_ms.eq(now)))
            .on_conflict_do_nothing()
            .execute(db)
    })?;
    Ok(inserted == 1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn event(n: i64) -> Event {
        let mut e = crate::Event::new(
            &crate::catalogue::ACCOUNT_UPDATED,
            "coffer",
            n,
            uuid::Uuid::nil(),
            None,
            None,
            serde_json::Value::Null,
        );
        e.timestamp = n;
        e
    }

    #[test]
    fn one_keys_events_stay_in_one_lane_in_their_order() {
        let keys = ["a", "b", "a", "c", "b", "a", "d", "e", "f", "g"];
        let events: Vec<Event> = (0..keys.len() as i64).map(event).collect();
        let lanes = split_into_lanes(events, &keys, 4);
        assert!(lanes.len() > 1 && lanes.len() <= 4, "{}", lanes.len());
        assert_eq!(lanes.iter().map(Vec::len).sum::<usize>(), keys.len());
        for key in ["a", "b"] {
            let at: Vec<i64> = keys
                .iter()
                .enumerate()
                .filter(|(_, k)| **k == key)
                .map(|(i, _)| i as i64)
                .collect();
            let holding: Vec<&Vec<Event>> = lanes
                .iter()
                .filter(|l| l.iter().any(|e| at.contains(&e.timestamp)))
                .collect();
            assert_eq!(holding.len(), 1, "{key} is in one lane");
            let order: Vec<i64> = holding[0]
                .iter()
                .map(|e| e.timestamp)
                .filter(|t| at.contains(t))
                .collect();
            assert_eq!(order, at, "{key} keeps its order");
        }
        assert_eq!(
            split_into_lanes((0..3).map(event).collect(), &["a", "b", "c"], 1).len(),
            1
        );
    }
}
