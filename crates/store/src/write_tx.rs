use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex};

use diesel::connection::{AnsiTransactionManager, Connection, TransactionManager};
use diesel::result::Error as DieselError;
use diesel::{PgConnection, SqliteConnection};

/// A database's writers in this process queue here before they ask SQLite for the write
/// lock. SQLite has one write lock per database, and a writer that finds it taken does not
/// wait for it to be freed: it sleeps in steps that grow to 100 ms and looks again, so
/// under load a write that needs a millisecond can wait a second. Queued writers are handed
/// the lock the moment it frees, in the order they came: a plain mutex lets a thread that
/// writes in a loop (the relay, group commit's writers) take it again before a request that
/// waited, which is where the slowest requests' time went. Another process (`coffer
/// admin`) still meets the busy timeout.
pub type WriteQueue = Arc<FifoLock>;

/// A ticket lock: each writer draws the next number and waits until it is served.
#[derive(Debug, Default)]
pub struct FifoLock {
    /// (next ticket to hand out, ticket being served)
    tickets: Mutex<(u64, u64)>,
    turn: Condvar,
}

impl FifoLock {
    fn lock(&self) -> impl Drop + '_ {
        struct Served<'a>(&'a FifoLock);
        impl Drop for Served<'_> {
            fn drop(&mut self) {
                let mut t = self.0.tickets.lock().unwrap_or_else(|e| e.into_inner());
                t.1 += 1;
                drop(t);
                self.0.turn.notify_all();
            }
        }
        // A panic while holding it poisons nothing that matters: it guards two counters.
        let mut t = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        let mine = t.0;
        t.0 += 1;
        while t.1 != mine {
            t = self.turn.wait(t).unwrap_or_else(|e| e.into_inner());
        }
        Served(self)
    }
}

thread_local! {
    /// The queue of the database whose connection this thread works on (`Store::run`).
    static QUEUE: RefCell<Option<WriteQueue>> = const { RefCell::new(None) };
    /// The queues this thread holds: a write made inside another on the same database
    /// must not queue behind itself.
    static HELD: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Names the queue of the database this thread is about to work on, until the guard drops.
pub(crate) fn working_on(queue: Option<WriteQueue>) -> impl Drop {
    struct Restore(Option<WriteQueue>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            QUEUE.with(|q| *q.borrow_mut() = previous);
        }
    }
    Restore(QUEUE.with(|q| std::mem::replace(&mut *q.borrow_mut(), queue)))
}

/// Runs `f` holding the current database's queue, once per thread.
fn queued<T>(f: impl FnOnce() -> T) -> T {
    let Some(queue) = QUEUE.with(|q| q.borrow().clone()) else {
        return f();
    };
    let id = Arc::as_ptr(&queue) as usize;
    if HELD.with(|h| h.borrow().contains(&id)) {
        return f();
    }
    let _turn = queue.lock();
    HELD.with(|h| h.borrow_mut().push(id));
    let result = f();
    HELD.with(|h| h.borrow_mut().retain(|held| *held != id));
    result
}

/// A transaction that will write. On SQLite it starts `IMMEDIATE`, taking the write lock up
/// front: a deferred transaction that reads first and writes later can fail with
/// SQLITE_BUSY at the write, which the busy timeout cannot help.
pub trait WriteTx: Connection {
    fn write_tx<T, E, F>(&mut self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Self) -> Result<T, E>,
        E: From<DieselError>;
}

impl WriteTx for PgConnection {
    fn write_tx<T, E, F>(&mut self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Self) -> Result<T, E>,
        E: From<DieselError>,
    {
        self.transaction(f)
    }
}

impl WriteTx for SqliteConnection {
    fn write_tx<T, E, F>(&mut self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Self) -> Result<T, E>,
        E: From<DieselError>,
    {
        // IMMEDIATE only opens a transaction; inside one (a store function called from a
        // larger transaction) the write lock is already held and a savepoint is what fits.
        let depth = <AnsiTransactionManager as TransactionManager<SqliteConnection>>::transaction_manager_status_mut(self)
            .transaction_depth();
        if matches!(depth, Ok(Some(_))) {
            self.transaction(f)
        } else {
            queued(|| self.immediate_transaction(f))
        }
    }
}
