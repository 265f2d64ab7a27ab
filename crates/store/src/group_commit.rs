//! Group commit: write transactions that arrive together share one database transaction,
//! so a burst of N writes costs one `BEGIN`, one `COMMIT` and one flush of the write-ahead
//! log instead of N of each. Under load this is where a write-heavy service spends its
//! database's time; alone, a write is a transaction of its own as before.
//!
//! Each write is applied in order inside the shared transaction. When one of them fails,
//! the shared transaction is rolled back and the batch applied again, still in one
//! transaction but each write behind a savepoint of its own, so the failed write is undone
//! alone and the others commit together; the savepoints cost two round trips a write, so
//! the first try goes without them. Only when the database itself fails the transaction is
//! each write applied in a transaction of its own. One bad write never takes others down
//! and none is half-applied. A write's effect may therefore run more than once and must
//! only touch the database: every effect handed to [`crate::Store::write`] is plain diesel
//! work.

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::result::Error as DieselError;
use tokio::sync::{Mutex, mpsc, oneshot};

use crate::{Conn, Db, Store, StoreError};

/// Writes committed together at most; more wait for the next transaction.
const MAX_BATCH: usize = 64;
/// Shared transactions in flight at once (each holds one pooled connection).
const WRITERS: usize = 2;

/// One write waiting for its transaction, with its caller's reply.
trait Pending: Send {
    /// Applies the effect; false when it failed (its error is kept for the answer).
    fn apply(&mut self, db: &mut Db<'_>) -> bool;
    /// Answers the caller: the effect's last outcome, or why its transaction failed.
    fn answer(self: Box<Self>, failure: Option<StoreError>);
}

struct Write<T, E, F> {
    effect: F,
    outcome: Option<Result<T, E>>,
    reply: oneshot::Sender<Result<T, E>>,
}

impl<T, E, F> Pending for Write<T, E, F>
where
    T: Send,
    E: From<DieselError> + From<StoreError> + Send,
    F: FnMut(&mut Db<'_>) -> Result<T, E> + Send,
{
    fn apply(&mut self, db: &mut Db<'_>) -> bool {
        let outcome = (self.effect)(db);
        let ok = outcome.is_ok();
        self.outcome = Some(outcome);
        ok
    }

    fn answer(self: Box<Self>, failure: Option<StoreError>) {
        let this = *self;
        let result = match (failure, this.outcome) {
            (Some(StoreError::Query(e)), _) => Err(E::from(e)),
            (Some(other), _) => Err(E::from(other)),
            (None, Some(outcome)) => outcome,
            (None, None) => Err(E::from(StoreError::Cancelled)),
        };
        // A caller that went away no longer needs the answer.
        let _ = this.reply.send(result);
    }
}

/// Why a shared transaction ended without committing.
enum Abort {
    Effect,
    Db(DieselError),
}

impl From<DieselError> for Abort {
    fn from(e: DieselError) -> Self {
        Abort::Db(e)
    }
}

/// Whether a shared transaction waits for its commit to reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    /// The commit returns once the write-ahead log is flushed: Coffer's own records.
    Flushed,
    /// On PostgreSQL the commit returns before the flush (`synchronous_commit = off`), so a
    /// crash of the database server (not of Coffer) may lose the last fraction of a second
    /// of these writes. Only for records that stand in for another party's (the test
    /// provider's book), never for Coffer's own.
    Unflushed,
}

#[derive(Clone)]
pub(crate) struct GroupCommit {
    queue: mpsc::UnboundedSender<Box<dyn Pending>>,
}

impl GroupCommit {
    /// Whether every writer is gone: their runtime stopped, dropping the queue's receiver.
    pub(crate) fn stopped(&self) -> bool {
        self.queue.is_closed()
    }

    /// Starts the writers on the current tokio runtime.
    pub(crate) fn start(store: Store, durability: Durability) -> Self {
        let (queue, receiver) = mpsc::unbounded_channel::<Box<dyn Pending>>();
        let receiver = Arc::new(Mutex::new(receiver));
        let writers = match durability {
            Durability::Flushed => WRITERS,
            // Commits that wait for no flush are short: one writer keeps up, and its
            // batches grow larger than two writers' would (measured, docs/benchmarks.md).
            Durability::Unflushed => 1,
        };
        for _ in 0..writers {
            let (store, receiver) = (store.clone(), Arc::clone(&receiver));
            tokio::spawn(async move {
                let mut held: Option<Held> = None;
                loop {
                    let batch = {
                        // A writer that holds a connection gives it back to the pool (to
                        // readers and the other writer) when no write came for a while;
                        // waiting for the queue counts, as the other writer may be the
                        // one waiting on it.
                        let rest = tokio::time::Instant::now() + FRESH;
                        let mut receiver = match held {
                            Some(_) => match tokio::time::timeout_at(rest, receiver.lock()).await {
                                Ok(receiver) => receiver,
                                Err(_) => {
                                    held = None;
                                    receiver.lock().await
                                }
                            },
                            None => receiver.lock().await,
                        };
                        let first = match held {
                            Some(_) => match tokio::time::timeout_at(rest, receiver.recv()).await {
                                Ok(first) => first,
                                Err(_) => {
                                    held = None;
                                    receiver.recv().await
                                }
                            },
                            None => receiver.recv().await,
                        };
                        let Some(first) = first else {
                            return;
                        };
                        let mut batch = vec![first];
                        while batch.len() < MAX_BATCH {
                            match receiver.try_recv() {
                                Ok(next) => batch.push(next),
                                Err(_) => break,
                            }
                        }
                        batch
                    };
                    let store = store.clone();
                    let conn = held.take();
                    // A panicking effect loses only its own batch's replies, which their
                    // callers see as a cancelled task (and the connection, checked out
                    // afresh for the next batch).
                    held = tokio::task::spawn_blocking(move || {
                        commit(&store, durability, conn, batch)
                    })
                    .await
                    .unwrap_or(None);
                }
            });
        }
        Self { queue }
    }

    pub(crate) async fn write<T, E, F>(&self, effect: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DieselError> + From<StoreError> + Send + 'static,
        F: FnMut(&mut Db<'_>) -> Result<T, E> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let pending = Box::new(Write {
            effect,
            outcome: None,
            reply,
        });
        if self.queue.send(pending).is_err() {
            return Err(E::from(StoreError::Cancelled));
        }
        // Built only when the writer went away: an `E` may log as it is made (ApiError's
        // internal errors do), and made eagerly it logged one error per write.
        answer
            .await
            .unwrap_or_else(|_| Err(E::from(StoreError::Cancelled)))
    }
}

/// Opens a shared transaction with its durability.
fn begin(tx: &mut Db<'_>, durability: Durability) -> Result<(), Abort> {
    if let (Durability::Unflushed, Db::Pg(pg)) = (durability, tx) {
        use diesel::connection::SimpleConnection;
        pg.batch_execute("SET LOCAL synchronous_commit TO OFF")?;
    }
    Ok(())
}

/// A writer's connection, kept from one batch to the next. The pool checks a connection
/// with a round trip (`SELECT 1`) each time it hands it out; a writer under load would pay
/// it once per batch, so it keeps its connection while it is busy and goes back to the pool
/// (and its check) only after a pause, or after any database error.
struct Held {
    conn: Conn,
    used: Instant,
}

/// How long a writer's connection may rest and still be used without the pool's check.
const FRESH: Duration = Duration::from_secs(1);

fn commit(
    store: &Store,
    durability: Durability,
    held: Option<Held>,
    mut batch: Vec<Box<dyn Pending>>,
) -> Option<Held> {
    let _queue = crate::write_tx::working_on(store.write_queue());
    let fresh = held.filter(|h| h.used.elapsed() < FRESH).map(|h| h.conn);
    let mut conn = match fresh.map_or_else(|| store.get(), Ok) {
        Ok(conn) => conn,
        Err(e) => {
            refuse(batch, &e);
            return None;
        }
    };
    if batch.len() > 1 {
        let mut outcome = shared(&mut conn, durability, &mut batch, Guard::None);
        if matches!(outcome, Err(Abort::Effect)) && !conn.is_broken() {
            outcome = shared(&mut conn, durability, &mut batch, Guard::Savepoints);
        }
        if outcome.is_ok() {
            for pending in batch {
                pending.answer(None);
            }
            return kept(conn);
        }
    }
    // Alone (or again, alone): each write in a transaction of its own, on a connection
    // the pool has checked whenever the last one failed.
    let mut healthy = batch.len() == 1;
    let mut batch = batch.into_iter();
    while let Some(mut pending) = batch.next() {
        if !healthy || conn.is_broken() {
            conn = match store.get() {
                Ok(conn) => conn,
                Err(e) => {
                    refuse(std::iter::once(pending).chain(batch), &e);
                    return None;
                }
            };
        }
        let alone = conn.db().write_tx(|tx| {
            begin(tx, durability)?;
            if pending.apply(tx) {
                Ok(())
            } else {
                Err(Abort::Effect)
            }
        });
        healthy = true;
        match alone {
            Ok(()) | Err(Abort::Effect) => pending.answer(None),
            Err(Abort::Db(e)) => {
                healthy = false;
                pending.answer(Some(StoreError::Query(e)));
            }
        }
    }
    if healthy { kept(conn) } else { None }
}

/// Whether each write of a shared transaction stands behind a savepoint of its own.
#[derive(Clone, Copy)]
enum Guard {
    None,
    Savepoints,
}

/// The batch in one transaction. Unguarded, the first write that fails ends it; guarded, a
/// failed write is rolled back to its savepoint, keeps its error for its answer, and the
/// others go on.
fn shared(
    conn: &mut Conn,
    durability: Durability,
    batch: &mut [Box<dyn Pending>],
    guard: Guard,
) -> Result<(), Abort> {
    conn.db().write_tx(|tx| {
        begin(tx, durability)?;
        for pending in batch.iter_mut() {
            let applied = match guard {
                Guard::None => {
                    if pending.apply(tx) {
                        Ok(())
                    } else {
                        Err(Abort::Effect)
                    }
                }
                Guard::Savepoints => tx.write_tx(|sp| {
                    if pending.apply(sp) {
                        Ok(())
                    } else {
                        Err(Abort::Effect)
                    }
                }),
            };
            match (applied, guard) {
                (Ok(()), _) | (Err(Abort::Effect), Guard::Savepoints) => {}
                (Err(abort), _) => return Err(abort),
            }
        }
        Ok(())
    })
}

/// Keeps a connection for the writer's next batch, unless it cannot be trusted.
fn kept(mut conn: Conn) -> Option<Held> {
    (!conn.is_broken()).then(|| Held {
        conn,
        used: Instant::now(),
    })
}

/// Answers writes that found no connection.
fn refuse(batch: impl IntoIterator<Item = Box<dyn Pending>>, e: &StoreError) {
    let reason = e.to_string();
    for pending in batch {
        pending.answer(Some(StoreError::Unavailable(reason.clone())));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use diesel::connection::SimpleConnection;

    use crate::{PoolOptions, Store, StoreError, db_run};

    #[tokio::test]
    async fn a_failing_write_takes_no_other_down_and_leaves_nothing_behind() {
        let dir = tempfile_dir("failing");
        let url = format!("sqlite://{}/db.sqlite", dir.display());
        let store = Store::connect(&url, &PoolOptions::default()).unwrap();
        store
            .run(|db| {
                db_run!(db: { db.batch_execute("CREATE TABLE t (x INTEGER UNIQUE NOT NULL, y INTEGER)") })
                    .map_err(StoreError::from)
            })
            .await
            .unwrap();
        // Twenty writes queued at once, so they share transactions; write 7 repeats write
        // 3's unique value, in a second statement after a first that succeeds.
        let writes: Vec<_> = (0..20)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let x = if i == 7 { 3 } else { i };
                    store
                        .write(move |db| {
                            db_run!(db: {
                                db.batch_execute(&format!("INSERT INTO t VALUES ({}, 0)", 100 + i))?;
                                db.batch_execute(&format!("INSERT INTO t VALUES ({x}, {i})"))
                            })
                            .map_err(StoreError::from)
                        })
                        .await
                })
            })
            .collect();
        let mut failures = Vec::new();
        for (i, w) in writes.into_iter().enumerate() {
            if let Err(e) = w.await.unwrap() {
                failures.push((i, e));
            }
        }
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0].1.is_unique_violation(), "{failures:?}");
        #[derive(diesel::QueryableByName)]
        struct N {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let rows = store
            .query(|db| {
                db_run!(db: { diesel::RunQueryDsl::load::<N>(diesel::sql_query("SELECT COUNT(*) AS n FROM t"), db) })
            })
            .await
            .unwrap();
        assert_eq!(
            rows[0].n, 38,
            "19 writes of two rows each; none of the failed one's"
        );
        std::fs::remove_dir_all(dir).ok();
    }

    /// An error type that counts how often it is made, as ApiError logs each time.
    #[derive(Debug)]
    struct Counted;

    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    impl From<StoreError> for Counted {
        fn from(_: StoreError) -> Self {
            MADE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Counted
        }
    }

    impl From<diesel::result::Error> for Counted {
        fn from(_: diesel::result::Error) -> Self {
            MADE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Counted
        }
    }

    #[tokio::test]
    async fn a_write_that_succeeds_makes_no_error_value() {
        let dir = tempfile_dir("quiet");
        let url = format!("sqlite://{}/db.sqlite", dir.display());
        let store = Store::connect(&url, &PoolOptions::default()).unwrap();
        for _ in 0..10 {
            store.write(|_db| Ok::<_, Counted>(())).await.unwrap();
        }
        assert_eq!(MADE.load(std::sync::atomic::Ordering::SeqCst), 0);
        std::fs::remove_dir_all(dir).ok();
    }

    #[tokio::test]
    async fn an_idle_writer_gives_its_connection_back() {
        let dir = tempfile_dir("idle");
        let url = format!("sqlite://{}/db.sqlite", dir.display());
        // One connection in all: while a writer keeps it, nothing else can have it.
        let options = PoolOptions {
            max_connections: 1,
            connect_timeout: std::time::Duration::from_millis(300),
            ..PoolOptions::default()
        };
        let store = Store::connect(&url, &options).unwrap();
        store.write(|_db| Ok::<_, StoreError>(())).await.unwrap();
        tokio::time::sleep(super::FRESH * 2).await;
        store
            .query(|db| db_run!(db: { db.batch_execute("SELECT 1") }))
            .await
            .expect("a writer that rests keeps no connection from readers");
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn writers_that_stopped_with_their_runtime_are_started_again() {
        let dir = tempfile_dir("restart");
        let url = format!("sqlite://{}/db.sqlite", dir.display());
        let store = Store::connect(&url, &PoolOptions::default()).unwrap();
        let write = |store: Store| async move {
            store
                .write(|db| {
                    db_run!(db: { db.batch_execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)") })
                        .map_err(StoreError::from)
                })
                .await
        };
        // The first write starts the writers on a runtime that then stops, as an HTTP
        // server's worker does when the server stops.
        let first = tokio::runtime::Runtime::new().unwrap();
        first.block_on(write(store.clone())).unwrap();
        drop(first);
        let second = tokio::runtime::Runtime::new().unwrap();
        second
            .block_on(write(store.clone()))
            .expect("a write after the first runtime stopped");
        std::fs::remove_dir_all(dir).ok();
    }

    fn tempfile_dir(name: &str) -> std::path::PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        std::env::temp_dir().join(format!(
            "coffer-group-{name}-{}-{nanos}",
            std::process::id()
        ))
    }
}
