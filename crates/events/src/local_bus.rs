//! The in-process bus of standalone `coffer`: a topic log in its own SQLite file, so a
//! message the relay has handed over survives a crash just as it would in Kafka, and a
//! consumer group resumes after its last acknowledged message.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use coffer_model::clock::Clock;
use coffer_store::{Db, Migrations, Store, StoreError, db_run};
use diesel::prelude::*;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::sync::Arc;
use tokio::sync::watch;

use crate::bus::{BoxFuture, Bus, BusError, Delivery, Message, Subscription};
use crate::schema::{bus_dead_letters::dsl as dl, bus_messages::dsl as m, bus_positions::dsl as p};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/bus/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/bus/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "bus",
    includes: &[],
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};

/// How long a waiting consumer sleeps before looking again without a wake-up; covers
/// messages written by another process on the same file.
const POLL: Duration = Duration::from_millis(500);
const FETCH: i64 = 500;

fn unavailable(e: StoreError) -> BusError {
    BusError::Unavailable(e.to_string())
}

fn headers_json(headers: &[(String, String)]) -> String {
    serde_json::to_string(headers).unwrap_or_else(|_| "[]".into())
}

pub struct LocalBus {
    store: Store,
    clock: Arc<dyn Clock>,
    published: watch::Sender<u64>,
}

/// Messages are kept this long, as a Kafka topic keeps them by default; a consumer that
/// falls further behind misses what was dropped, as it would on Kafka.
const RETENTION_MS: i64 = 7 * 24 * 3600 * 1000;
/// Publishes between two purges of expired messages.
const PURGE_EVERY: u64 = 1000;

/// Appends `messages` to the log in one write transaction, which queues with the bus's
/// other writers (coffer_store's write_tx) instead of meeting them in SQLite's busy
/// handler.
fn append(db: &mut Db<'_>, messages: &[Message], now: i64) -> QueryResult<usize> {
    let rows: Vec<_> = messages
        .iter()
        .map(|msg| {
            (
                m::topic.eq(msg.topic.clone()),
                m::message_key.eq(msg.key.clone()),
                m::payload.eq(String::from_utf8_lossy(&msg.payload).into_owned()),
                m::headers.eq(headers_json(&msg.headers)),
                m::created_ms.eq(now),
            )
        })
        .collect();
    db.write_tx(
        |db| db_run!(db: { diesel::insert_into(m::bus_messages).values(&rows).execute(db) }),
    )
}

/// Drops the messages written before `before`.
fn purge(db: &mut Db<'_>, before: i64) -> QueryResult<usize> {
    db.write_tx(|db| db_run!(db: { diesel::delete(m::bus_messages.filter(m::created_ms.lt(before))).execute(db) }))
}

impl LocalBus {
    /// `store` must be migrated with [`MIGRATIONS`].
    pub fn new(store: Store, clock: Arc<dyn Clock>) -> Self {
        Self {
            store,
            clock,
            published: watch::channel(0).0,
        }
    }

    /// Wakes the waiting consumers after a publish; whether it is one after which expired
    /// messages are purged.
    fn announced(&self) -> bool {
        let mut count = 0;
        self.published.send_modify(|n| {
            *n = n.wrapping_add(1);
            count = *n;
        });
        count % PURGE_EVERY == 0
    }

    /// Dead letters of `group`, oldest first: (topic, key, reason).
    pub async fn dead_letters(
        &self,
        group: &str,
    ) -> Result<Vec<(String, String, String)>, StoreError> {
        let group = group.to_owned();
        self.store
            .query(move |db| {
                db_run!(db: {
                    dl::bus_dead_letters
                        .filter(dl::group_name.eq(&group))
                        .order(dl::id.asc())
                        .select((dl::topic, dl::message_key, dl::reason))
                        .load(db)
                })
            })
            .await
    }
}

impl Bus for LocalBus {
    fn ready(&self) -> BoxFuture<'_, Result<(), BusError>> {
        Box::pin(async move { self.store.ping().await.map_err(unavailable) })
    }

    fn publish<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<(), BusError>> {
        Box::pin(async move {
            let now = self.clock.unix_ms();
            let batch = messages.to_vec();
            self.store
                .query(move |db| append(db, &batch, now))
                .await
                .map_err(unavailable)?;
            if self.announced() {
                let purged = self
                    .store
                    .query(move |db| purge(db, now - RETENTION_MS))
                    .await;
                if let Err(e) = purged {
                    tracing::warn!(error = %e, "could not purge expired bus messages");
                }
            }
            Ok(())
        })
    }

    fn publish_here(&self, messages: &[Message]) -> Option<Result<(), BusError>> {
        let now = self.clock.unix_ms();
        let appended = self
            .store
            .run_here(|db| append(db, messages, now).map_err(StoreError::from));
        if let Err(e) = appended {
            return Some(Err(unavailable(e)));
        }
        if self.announced() {
            let purged = self
                .store
                .run_here(|db| purge(db, now - RETENTION_MS).map_err(StoreError::from));
            if let Err(e) = purged {
                tracing::warn!(error = %e, "could not purge expired bus messages");
            }
        }
        Some(Ok(()))
    }

    fn subscribe<'a>(
        &'a self,
        group: &'a str,
        topics: &'a [String],
    ) -> BoxFuture<'a, Result<Box<dyn Subscription>, BusError>> {
        Box::pin(async move {
            let (g, t) = (group.to_owned(), topics.to_vec());
            let stored: Vec<(String, i64)> = self
                .store
                .query(move |db| {
                    db_run!(db: {
                        p::bus_positions
                            .filter(p::group_name.eq(&g).and(p::topic.eq_any(&t)))
                            .select((p::topic, p::position))
                            .load(db)
                    })
                })
                .await
                .map_err(unavailable)?;
            let positions: HashMap<String, i64> = stored.into_iter().collect();
            let cursor = topics
                .iter()
                .map(|t| positions.get(t).copied().unwrap_or(0))
                .min()
                .unwrap_or(0);
            Ok(Box::new(LocalSubscription {
                store: self.store.clone(),
                group: group.to_owned(),
                topics: topics.to_vec(),
                positions,
                cursor,
                buffer: VecDeque::new(),
                wake: self.published.subscribe(),
            }) as Box<dyn Subscription>)
        })
    }

    fn dead_letter<'a>(
        &'a self,
        group: &'a str,
        message: &'a Message,
        reason: &'a str,
    ) -> BoxFuture<'a, Result<(), BusError>> {
        Box::pin(async move {
            let row = (
                dl::group_name.eq(group.to_owned()),
                dl::topic.eq(message.topic.clone()),
                dl::message_key.eq(message.key.clone()),
                dl::payload.eq(String::from_utf8_lossy(&message.payload).into_owned()),
                dl::headers.eq(headers_json(&message.headers)),
                dl::reason.eq(reason.to_owned()),
                dl::created_ms.eq(self.clock.unix_ms()),
            );
            self.store
                .query(move |db| db_run!(db: { diesel::insert_into(dl::bus_dead_letters).values(&row).execute(db) }))
                .await
                .map(drop)
                .map_err(unavailable)
        })
    }
}

struct LocalSubscription {
    store: Store,
    group: String,
    topics: Vec<String>,
    /// Last acknowledged position per topic.
    positions: HashMap<String, i64>,
    /// Last position read into the buffer.
    cursor: i64,
    buffer: VecDeque<Delivery>,
    wake: watch::Receiver<u64>,
}

type Row = (i64, String, String, String, String);

fn fetch(db: &mut Db<'_>, topics: &[String], after: i64) -> QueryResult<Vec<Row>> {
    db_run!(db: {
        m::bus_messages
            .filter(m::topic.eq_any(topics).and(m::position.gt(after)))
            .order(m::position.asc())
            .limit(FETCH)
            .select((m::position, m::topic, m::message_key, m::payload, m::headers))
            .load(db)
    })
}

impl Subscription for LocalSubscription {
    fn next(&mut self) -> BoxFuture<'_, Result<Delivery, BusError>> {
        Box::pin(async move {
            loop {
                if let Some(d) = self.buffer.pop_front() {
                    return Ok(d);
                }
                self.wake.borrow_and_update();
                let (topics, after) = (self.topics.clone(), self.cursor);
                let rows = self
                    .store
                    .query(move |db| fetch(db, &topics, after))
                    .await
                    .map_err(unavailable)?;
                for (position, topic, key, payload, headers) in rows {
                    self.cursor = position;
                    // Already acknowledged on this topic before a restart.
                    if position <= self.positions.get(&topic).copied().unwrap_or(0) {
                        continue;
                    }
                    let headers = serde_json::from_str(&headers).unwrap_or_default();
                    let message = Message {
                        topic,
                        key,
                        payload: payload.into_bytes(),
                        headers,
                    };
                    self.buffer.push_back(Delivery {
                        message,
                        partition: 0,
                        offset: position,
                    });
                }
                if self.buffer.is_empty() {
                    let _ = tokio::time::timeout(POLL, self.wake.changed()).await;
                }
            }
        })
    }

    fn ack<'a>(&'a mut self, delivery: &'a Delivery) -> BoxFuture<'a, Result<(), BusError>> {
        Box::pin(async move {
            let (group, topic, position) = (
                self.group.clone(),
                delivery.message.topic.clone(),
                delivery.offset,
            );
            self.store
                .query(move |db| {
                    db.write_tx(|db| db_run!(db: {
                        diesel::insert_into(p::bus_positions)
                            .values((p::group_name.eq(&group), p::topic.eq(&topic), p::position.eq(position)))
                            .on_conflict((p::group_name, p::topic))
                            .do_update()
                            .set(p::position.eq(position))
                            .execute(db)
                    }))
                })
                .await
                .map_err(|e| BusError::Consume(e.to_string()))?;
            self.positions
                .insert(delivery.message.topic.clone(), delivery.offset);
            Ok(())
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        // Every acknowledgement is already written.
        Box::pin(async {})
    }
}
