use diesel::connection::{AnsiTransactionManager, Connection, TransactionManager};
use diesel::result::Error as DieselError;
use diesel::{PgConnection, SqliteConnection};

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
            self.immediate_transaction(f)
        }
    }
}
