use std::cell::Cell;
use std::sync::Mutex;

use diesel::connection::{AnsiTransactionManager, Connection, TransactionManager};
use diesel::result::Error as DieselError;
use diesel::{PgConnection, SqliteConnection};

/// Every SQLite write transaction of this process queues here first. SQLite has one write
/// lock per database, and a writer that finds it taken does not wait for it to be freed:
/// it sleeps in steps that grow to 100 ms and looks again, so under load a write that
/// needs a millisecond can wait a second. Writers queued on a mutex are handed the lock the
/// moment it frees. Databases of one process are few and their writes short, so one queue
/// for all of them costs little; another process (`coffer admin`) still meets the busy
/// timeout.
static SQLITE_WRITERS: Mutex<()> = Mutex::new(());

thread_local! {
    /// Whether this thread holds [`SQLITE_WRITERS`]: a write made inside another (the relay
    /// publishing to the bus's database) must not queue behind itself.
    static HOLDS_SQLITE_WRITERS: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` holding the SQLite writers' queue, once per thread.
fn queued<T>(f: impl FnOnce() -> T) -> T {
    if HOLDS_SQLITE_WRITERS.with(Cell::get) {
        return f();
    }
    // A panic while holding it poisons nothing that matters: the queue guards no data.
    let _turn = SQLITE_WRITERS.lock().unwrap_or_else(|e| e.into_inner());
    HOLDS_SQLITE_WRITERS.with(|h| h.set(true));
    let result = f();
    HOLDS_SQLITE_WRITERS.with(|h| h.set(false));
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
