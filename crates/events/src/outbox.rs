//! The transactional outbox: events are rows written in the same transaction as the change
//! they announce. A rolled-back transaction leaves no event behind; a committed one leaves
//! a row the relay will publish, whatever happens to the process in between.

use std::sync::Arc;

use coffer_model::clock::Clock;
use coffer_store::{Db, db_run};
use diesel::prelude::*;
use tokio::sync::Notify;
use uuid::Uuid;

use crate::schema::outbox::dsl as o;
use crate::{Event, EventType, TraceContext};

/// Outbox rows are spread over this many partitions by `object_uuid`. A relay replica locks
/// whole partitions, so the events of one object are always published by one relay at a
/// time, in order.
pub const PARTITIONS: i32 = 64;

/// An event with the topic it goes to.
#[derive(Debug, Clone)]
pub struct OutboxEvent {
    pub topic: String,
    pub event: Event,
}

/// Makes a service's events: the configured prefix, the clock, and the signal that wakes
/// the relay after a commit.
#[derive(Clone, Debug)]
pub struct Outbox {
    prefix: String,
    clock: Arc<dyn Clock>,
    signal: Arc<Notify>,
}

impl Outbox {
    pub fn new(prefix: impl Into<String>, clock: Arc<dyn Clock>) -> Self {
        Self {
            prefix: prefix.into(),
            clock,
            signal: Arc::new(Notify::new()),
        }
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub fn event(
        &self,
        kind: &EventType,
        object_uuid: Uuid,
        organisation_uuid: Option<Uuid>,
        account_uuid: Option<Uuid>,
        data: serde_json::Value,
    ) -> OutboxEvent {
        OutboxEvent {
            topic: kind.topic(&self.prefix),
            event: Event::new(
                kind,
                &self.prefix,
                self.clock.unix_ms(),
                object_uuid,
                organisation_uuid,
                account_uuid,
                data,
            ),
        }
    }

    /// The relay waits on this; [`Outbox::committed`] wakes it.
    pub fn signal(&self) -> Arc<Notify> {
        Arc::clone(&self.signal)
    }

    /// Call after a transaction that appended events has committed, so they go out now
    /// rather than at the relay's next poll.
    pub fn committed(&self) {
        self.signal.notify_one();
    }
}

/// FNV-1a over the uuid's bytes: stable across builds, processes and languages.
pub fn partition_of(object_uuid: &Uuid) -> i32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in object_uuid.as_bytes() {
        hash ^= u32::from(*byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    (hash % PARTITIONS as u32) as i32
}

#[derive(Insertable)]
#[diesel(table_name = crate::schema::outbox)]
struct NewRow<'a> {
    event_id: String,
    topic: &'a str,
    message_key: String,
    partition_no: i32,
    payload: String,
    traceparent: Option<String>,
    created_ms: i64,
}

/// Appends `events` to the outbox. Call it inside the transaction that makes the change.
pub fn append(
    db: &mut Db<'_>,
    events: &[OutboxEvent],
    trace: Option<&TraceContext>,
) -> QueryResult<()> {
    let traced: Vec<_> = events.iter().map(|e| (e, trace)).collect();
    append_traced(db, &traced)
}

/// [`append`] for events of several requests written in one transaction (a batch of them),
/// each under its own request's trace: one statement for all.
pub fn append_traced(
    db: &mut Db<'_>,
    events: &[(&OutboxEvent, Option<&TraceContext>)],
) -> QueryResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    let mut rows = Vec::with_capacity(events.len());
    for (e, trace) in events {
        let payload = e
            .event
            .to_json_string()
            .map_err(|err| diesel::result::Error::SerializationError(Box::new(err)))?;
        rows.push(NewRow {
            event_id: e.event.id.to_string(),
            topic: &e.topic,
            message_key: e.event.object_uuid.to_string(),
            partition_no: partition_of(&e.event.object_uuid),
            payload,
            traceparent: trace.map(|t| t.child().header()),
            created_ms: e.event.timestamp,
        });
    }
    db_run!(db: { diesel::insert_into(o::outbox).values(&rows).execute(db).map(drop) })
}

/// How many events wait to be published, and when the oldest of them was committed (ms).
pub fn pending_summary(db: &mut Db<'_>) -> QueryResult<(i64, Option<i64>)> {
    use diesel::dsl::{count_star, min};
    db_run!(db: {
        o::outbox
            .filter(o::published_ms.is_null())
            .select((count_star(), min(o::created_ms)))
            .get_result(db)
    })
}

/// Events not yet published, for operators and tests.
pub fn pending_count(db: &mut Db<'_>) -> QueryResult<i64> {
    db_run!(db: { o::outbox.filter(o::published_ms.is_null()).count().get_result(db) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_stable_and_in_range() {
        let id = Uuid::from_u128(0x1234_5678_9abc_def0_1234_5678_9abc_def0);
        assert_eq!(partition_of(&id), partition_of(&id));
        for _ in 0..1000 {
            let p = partition_of(&Uuid::new_v4());
            assert!((0..PARTITIONS).contains(&p));
        }
    }
}
