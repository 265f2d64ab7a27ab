//! The relay: moves committed outbox rows to the bus, in order, and deletes them once
//! published.
//!
//! On PostgreSQL a batch is read, published with no transaction open (the broker is
//! outside the process), then deleted in a short transaction of its own. If the process
//! dies before the delete commits, the rows are still there and go out again (the bus may
//! then carry a message twice; consumers' inboxes absorb that). Several relays may run:
//! each takes session advisory locks on a set of partitions before reading their rows,
//! and keeps them until the rows are deleted, so one object's events are only ever
//! published by one relay at a time, oldest first. The partition's lock is what keeps
//! other relays away, so the rows themselves are not locked (a row lock is a write per
//! row, and the relay of a busy service reads hundreds of thousands). On SQLite, the
//! embedded default with the in-process bus, the batch is read, handed to that bus and
//! deleted in one immediate transaction: SQLite's one write lock is the claim.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use coffer_store::{Db, Store, StoreError, WriteTx, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use tokio::sync::Notify;

use crate::bus::{Bus, BusError, Message};
use crate::outbox::PARTITIONS;
use crate::schema::outbox::dsl as o;

#[derive(Debug, Clone)]
pub struct RelaySettings {
    /// Rows claimed and published per transaction.
    pub batch_size: i64,
    /// How often to look for rows when nothing wakes the relay (rows written by another
    /// process, e.g. `coffer admin`).
    pub poll_interval: Duration,
    /// Partitions one relay claims at a time on PostgreSQL; with fewer than
    /// `PARTITIONS / partitions_per_claim` replicas every partition has a taker.
    pub partitions_per_claim: i32,
    /// Names this service's advisory locks (first key of the two-key form).
    pub lock_space: i32,
}

/// Relay loops one process runs on PostgreSQL. With 64 partitions and 16 claimed at a
/// time, four loops can each hold partitions of their own; more would find them taken.
const SIDE_BY_SIDE: usize = 4;

/// Rows a process's relay deletes from the outbox on PostgreSQL before it vacuums the table
/// itself. Every relay read walks the index entries of rows deleted since the last vacuum
/// (the oldest of each partition, which is where it starts); autovacuum visits a database
/// about once a minute, and a busy service deletes hundreds of thousands of rows in that
/// time, which made a read 58 ms; about 3 ms with these vacuums (docs/benchmarks.md).
const VACUUM_AFTER: usize = 20_000;

/// Events one relay pass publishes at most on SQLite (see `run_once`).
const SQLITE_BATCH: i64 = 64;

impl Default for RelaySettings {
    fn default() -> Self {
        Self {
            batch_size: 500,
            poll_interval: Duration::from_millis(500),
            partitions_per_claim: 16,
            lock_space: 0x00c0_ffe0,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("outbox query failed: {0}")]
    Query(#[from] DieselError),
    #[error(transparent)]
    Bus(#[from] BusError),
}

type Claimed = (i64, String, String, String, Option<String>);

pub struct Relay {
    store: Store,
    bus: Arc<dyn Bus>,
    signal: Arc<Notify>,
    settings: RelaySettings,
    /// Rows deleted since this process last vacuumed the outbox.
    deleted: Arc<AtomicUsize>,
}

impl Relay {
    pub fn new(
        store: Store,
        bus: Arc<dyn Bus>,
        signal: Arc<Notify>,
        settings: RelaySettings,
    ) -> Self {
        Self {
            store,
            bus,
            signal,
            settings,
            deleted: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Publishes one batch; returns how many events went out.
    pub async fn run_once(&self) -> Result<usize, RelayError> {
        let bus = Arc::clone(&self.bus);
        let runtime = tokio::runtime::Handle::current();
        let settings = self.settings.clone();
        let deleted = Arc::clone(&self.deleted);
        // A first partition chosen at random, so replicas start on different ones.
        let start = (uuid::Uuid::new_v4().as_u128() % PARTITIONS as u128) as i32;
        self.store
            .run(move |db| {
                let publish = |rows: &[Claimed]| -> Result<(), RelayError> {
                    if rows.is_empty() {
                        return Ok(());
                    }
                    let messages: Vec<Message> = rows.iter().map(to_message).collect();
                    // A bus in this process takes the batch on this thread: on SQLite
                    // this runs inside the transaction that claims the rows, and waiting
                    // here for another blocking thread, with the outbox's write lock
                    // held, could wait forever on threads queued behind that lock.
                    bus.publish_here(&messages)
                        .unwrap_or_else(|| runtime.block_on(bus.publish(&messages)))
                        .map_err(RelayError::from)
                };
                match db {
                    Db::Pg(conn) => {
                        let conn: &mut diesel::PgConnection = conn;
                        let rows = claim_oldest(conn, start, &settings).map_err(RelayError::from);
                        let sent = rows.and_then(|rows| {
                            publish(&rows)?;
                            if !rows.is_empty() {
                                conn.write_tx(|conn| remove(&mut Db::Pg(conn), &rows))?;
                            }
                            Ok(rows.len())
                        });
                        // Whatever happened, the partitions are let go before the
                        // connection goes back to the pool. If even that fails, the
                        // connection is most likely gone, and the server frees a
                        // session's locks when it ends.
                        let unlocked = unlock_partitions(conn);
                        let sent = sent?;
                        unlocked?;
                        if sent > 0
                            && deleted.fetch_add(sent, Ordering::Relaxed) + sent >= VACUUM_AFTER
                        {
                            deleted.store(0, Ordering::Relaxed);
                            vacuum(conn);
                        }
                        Ok(sent)
                    }
                    // SQLite has one writer, and the embedded default pairs it with the
                    // in-process bus: the immediate transaction is the claim (it also
                    // keeps relays of other processes on the same file in turn), so the
                    // batch goes to that bus inside it, and is kept short for the
                    // requests queued behind it.
                    Db::Sqlite(conn) => conn.write_tx(|conn| {
                        let rows: Vec<Claimed> = o::outbox
                            .filter(o::published_ms.is_null())
                            .order(o::seq.asc())
                            .limit(settings.batch_size.min(SQLITE_BATCH))
                            .select((o::seq, o::topic, o::message_key, o::payload, o::traceparent))
                            .load(conn)?;
                        publish(&rows)?;
                        remove(&mut Db::Sqlite(conn), &rows)?;
                        Ok(rows.len())
                    }),
                }
            })
            .await
    }

    /// Starts the relay's loops: on PostgreSQL [`SIDE_BY_SIDE`] of them, each claiming
    /// partitions of its own, so one loop's batch is read or deleted while another's is on
    /// the way to the bus; on SQLite, with its one writer, a single loop. Each loop holds a
    /// pooled connection while its batch is on the way, so a stalled bus can keep up to
    /// four of a process's connections until the producer gives up (30 s).
    pub fn spawn(self: &Arc<Self>) -> Vec<tokio::task::JoinHandle<()>> {
        let loops = match self.store.backend() {
            coffer_store::Backend::Postgres => SIDE_BY_SIDE,
            coffer_store::Backend::Sqlite => 1,
        };
        (0..loops)
            .map(|_| tokio::spawn(Arc::clone(self).run()))
            .collect()
    }

    /// Publishes until the outbox is empty, then waits for a commit signal or the poll
    /// interval. Never returns; errors are logged and retried.
    pub async fn run(self: Arc<Self>) {
        let mut backoff = Duration::from_millis(100);
        loop {
            match self.run_once().await {
                Ok(n) if n > 0 => {
                    backoff = Duration::from_millis(100);
                    continue;
                }
                Ok(_) => backoff = Duration::from_millis(100),
                Err(e) => {
                    tracing::warn!(error = %e, "outbox relay failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                    continue;
                }
            }
            let _ = tokio::time::timeout(self.settings.poll_interval, self.signal.notified()).await;
        }
    }
}

/// Vacuums the outbox, so the next reads do not walk the entries of deleted rows. Another
/// relay's vacuum already under way is left to finish (`SKIP_LOCKED`); a failure (a role
/// that does not own the table, say) leaves it to autovacuum.
fn vacuum(conn: &mut diesel::PgConnection) {
    use diesel::connection::SimpleConnection;
    // The simple protocol: VACUUM runs in no transaction block, implicit or not.
    if let Err(e) = conn.batch_execute("VACUUM (SKIP_LOCKED) outbox") {
        tracing::debug!(error = %e, "vacuuming the outbox failed; autovacuum will");
    }
}

/// Lets go of every partition this session locked.
fn unlock_partitions(conn: &mut diesel::PgConnection) -> QueryResult<()> {
    diesel::sql_query("SELECT pg_advisory_unlock_all()")
        .execute(conn)
        .map(drop)
}

#[derive(QueryableByName)]
struct Partition {
    #[diesel(sql_type = diesel::sql_types::Integer)]
    partition_no: i32,
}

#[derive(QueryableByName)]
struct Pending {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    seq: i64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    topic: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    message_key: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    payload: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    traceparent: Option<String>,
}

/// Locks partitions, walking them from `start` so replicas tend to take different ones,
/// `partitions_per_claim` at a time, and reads the oldest rows of those it holds; while
/// the batch is not full, the next ones not yet tried, until every partition was tried.
/// Under a backlog the first partitions locked fill the batch, so it costs one lock walk
/// and one read. (Asking first which partitions have rows cost a probe of all 64, each
/// walking the index entries of rows deleted but not yet vacuumed: under load more than
/// the read itself.)
fn claim_oldest(
    conn: &mut diesel::PgConnection,
    start: i32,
    settings: &RelaySettings,
) -> QueryResult<Vec<Claimed>> {
    let batch = usize::try_from(settings.batch_size.max(1)).unwrap_or(usize::MAX);
    let mut tried: Vec<i32> = Vec::new();
    let mut rows = Vec::new();
    while rows.len() < batch {
        let mine = lock_partitions(conn, start, &tried, settings)?;
        if mine.is_empty() {
            break;
        }
        let left = i64::try_from(batch - rows.len()).unwrap_or(i64::MAX);
        rows.extend(oldest_of(conn, &mine, left)?);
        tried.extend(mine);
    }
    rows.sort_by_key(|r| r.0);
    Ok(rows)
}

/// Takes the advisory locks of up to `partitions_per_claim` partitions not in `tried`, in
/// the walk's order from `start`, in one round trip. They are session locks, held past
/// any transaction until [`unlock_partitions`]. The subquery is fenced (`OFFSET 0`)
/// and the lock is volatile, so locks are tried in that order and no further once enough
/// are held. A partition another relay holds is skipped.
fn lock_partitions(
    conn: &mut diesel::PgConnection,
    start: i32,
    tried: &[i32],
    settings: &RelaySettings,
) -> QueryResult<Vec<i32>> {
    use diesel::sql_types::{Array, Integer};
    let found: Vec<Partition> = diesel::sql_query(
        "SELECT w.no AS partition_no FROM ( \
             SELECT p.no FROM generate_series(0, $1 - 1) AS p(no) \
             WHERE p.no <> ALL($5) \
             ORDER BY (p.no - $2 + $1) % $1 OFFSET 0) AS w \
         WHERE pg_try_advisory_lock($3, w.no) \
         LIMIT $4",
    )
    .bind::<Integer, _>(PARTITIONS)
    .bind::<Integer, _>(start)
    .bind::<Integer, _>(settings.lock_space)
    .bind::<Integer, _>(settings.partitions_per_claim.max(1))
    .bind::<Array<Integer>, _>(tried)
    .load(conn)?;
    Ok(found.into_iter().map(|p| p.partition_no).collect())
}

/// The oldest unpublished rows of each partition in `partitions` (whose advisory locks
/// this session holds): each partition is read along its own index range, so the cost
/// follows the batch and not the backlog.
fn oldest_of(
    conn: &mut diesel::PgConnection,
    partitions: &[i32],
    batch: i64,
) -> QueryResult<Vec<Claimed>> {
    use diesel::sql_types::{Array, BigInt, Integer};
    if partitions.is_empty() {
        return Ok(Vec::new());
    }
    // A fair share of the batch per partition, but never less than an eighth of it, so a
    // partition busier than the rest still drains quickly: at most twice the batch.
    let share = batch / i64::try_from(partitions.len()).unwrap_or(1);
    let each = share.max(batch / 8).max(1);
    let rows: Vec<Pending> = diesel::sql_query(
        "SELECT c.seq, c.topic, c.message_key, c.payload, c.traceparent \
         FROM unnest($1::int[]) AS p(no), LATERAL ( \
             SELECT seq, topic, message_key, payload, traceparent FROM outbox \
             WHERE outbox.partition_no = p.no AND outbox.published_ms IS NULL \
             ORDER BY seq LIMIT $2) AS c \
         ORDER BY c.seq",
    )
    .bind::<Array<Integer>, _>(partitions)
    .bind::<BigInt, _>(each)
    .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|r| (r.seq, r.topic, r.message_key, r.payload, r.traceparent))
        .collect())
}

/// An event's id and name, as read from its wire form.
#[derive(serde::Deserialize)]
struct Headline {
    event: IdAndName,
}

#[derive(serde::Deserialize)]
struct IdAndName {
    id: String,
    name: String,
}

fn to_message((_, topic, key, payload, traceparent): &Claimed) -> Message {
    let mut headers = Vec::new();
    if let Some(t) = traceparent {
        headers.push(("traceparent".to_owned(), t.clone()));
    }
    // The id and name ride in headers too, so tools can route without parsing the body.
    // Only those two are read here; the rest of the payload is skipped, not built.
    if let Ok(Headline { event }) = serde_json::from_str::<Headline>(payload) {
        headers.push(("event_id".to_owned(), event.id));
        headers.push(("event_name".to_owned(), event.name));
    }
    Message {
        topic: topic.clone(),
        key: key.clone(),
        payload: payload.clone().into_bytes(),
        headers,
    }
}

/// Deletes the rows just published. The bus keeps what was published (Kafka's topic
/// retention, seven days on the in-process bus), so the outbox holds only what is still to
/// go: a delete writes far less than an update that would mark the row, which copies it.
fn remove(db: &mut Db<'_>, rows: &[Claimed]) -> QueryResult<()> {
    let seqs: Vec<i64> = rows.iter().map(|r| r.0).collect();
    db_run!(db: {
        diesel::delete(o::outbox.filter(o::seq.eq_any(&seqs))).execute(db).map(drop)
    })
}
