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

use crate::pools::Pools;
use crate::write_tx::WriteQueue;
use crate::{Conn, Db, StoreError};

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

/// Where the writers write: the Store's pool and, on SQLite, the queue its writers join
/// (write_tx.rs). The writers are handed these, not the Store, which owns the writers: so
/// they stop once the last clone of their Store is gone and no write can come.
#[derive(Clone)]
struct Database {
    pool: Pools,
    queue: Option<WriteQueue>,
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

    /// Starts the writers of the database that `pool` connects to, on `runtime` or else
    /// the current tokio runtime; `queue` is that database's write queue on SQLite.
    pub(crate) fn start(
        pool: Pools,
        queue: Option<WriteQueue>,
        durability: Durability,
        runtime: Option<&tokio::runtime::Handle>,
    ) -> Self {
        let database = Database { pool, queue };
        let (queue, receiver) = mpsc::unbounded_channel::<Box<dyn Pending>>();
        let receiver = Arc::new(Mutex::new(receiver));
        let writers = match durability {
            Durability::Flushed => WRITERS,
            // Commits that wait for no flush are short: one writer keeps up, and its
            // batches grow larger than two writers' would (measured, docs/benchmarks.md).
            Durability::Unflushed => 1,
        };
        for _ in 0..writers {
            let (database, receiver) = (database.clone(), Arc::clone(&receiver));
            let writer = async move {
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
                    let database = database.clone();
                    let conn = held.take();
                    // A panicking effect loses only its own batch's replies, which their
                    // callers see as a cancelled task (and the connection, checked out
                    // afresh for the next batch).
                    held = tokio::task::spawn_blocking(move || {
                        commit(&database, durability, conn, batch)
                    })
                    .await
                    .unwrap_or(None);
                }
            };
            match runtime {
                Some(runtime) => drop(runtime.spawn(writer)),
                None => drop(tokio::spawn(writer)),
            }
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
    database: &Database,
    durability: Durability,
    held: Option<Held>,
    mut batch: Vec<Box<dyn Pending>>,
) -> Option<Held> {
    let _queue = crate::write_tx::working_on(database.queue.clone());
    let fresh = held.filter(|h| h.used.elapsed() < FRESH).map(|h| h.conn);
    let mut conn = match fresh.map_or_else(|| database.pool.get(), Ok) {
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
            conn = match database.pool.get() {
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
