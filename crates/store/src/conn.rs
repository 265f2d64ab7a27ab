use diesel::r2d2::{ConnectionManager, PooledConnection};
use diesel::result::Error as DieselError;
use diesel::{PgConnection, SqliteConnection};

use crate::WriteTx;

/// One pooled connection of either backend.
pub enum Conn {
    Pg(PooledConnection<ConnectionManager<PgConnection>>),
    Sqlite(PooledConnection<ConnectionManager<SqliteConnection>>),
}

impl Conn {
    pub fn backend(&self) -> crate::Backend {
        match self {
            Conn::Pg(_) => crate::Backend::Postgres,
            Conn::Sqlite(_) => crate::Backend::Sqlite,
        }
    }

    pub fn db(&mut self) -> Db<'_> {
        match self {
            Conn::Pg(c) => Db::Pg(c),
            Conn::Sqlite(c) => Db::Sqlite(c),
        }
    }

    /// Marks the connection as not to be trusted, so that the pool drops it when it comes
    /// back instead of handing it out again (a PostgreSQL connection found closed).
    pub fn mark_broken(&mut self) {
        use diesel::connection::{AnsiTransactionManager, TransactionManager};
        match self {
            Conn::Pg(c) => {
                <AnsiTransactionManager as TransactionManager<PgConnection>>::transaction_manager_status_mut(c)
                    .set_in_error();
            }
            Conn::Sqlite(c) => {
                <AnsiTransactionManager as TransactionManager<SqliteConnection>>::transaction_manager_status_mut(c)
                    .set_in_error();
            }
        }
    }

    /// Whether the connection can no longer be trusted: a transaction left open, or one
    /// whose rollback failed (as when the server went away). The pool drops such a
    /// connection when it comes back; a caller that keeps one across uses asks here.
    pub fn is_broken(&mut self) -> bool {
        use diesel::r2d2::R2D2Connection;
        match self {
            Conn::Pg(c) => R2D2Connection::is_broken(&mut **c),
            Conn::Sqlite(c) => R2D2Connection::is_broken(&mut **c),
        }
    }
}

/// A borrowed connection of either backend, in or out of a transaction. Store functions
/// take this, so that one transaction can span several of them; open it with
/// [`crate::db_run!`].
pub enum Db<'a> {
    Pg(&'a mut PgConnection),
    Sqlite(&'a mut SqliteConnection),
}

impl Db<'_> {
    pub fn backend(&self) -> crate::Backend {
        match self {
            Db::Pg(_) => crate::Backend::Postgres,
            Db::Sqlite(_) => crate::Backend::Sqlite,
        }
    }

    /// Runs `f` in a write transaction (see [`WriteTx`]); nested calls become savepoints.
    pub fn write_tx<T, E, F>(&mut self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Db<'_>) -> Result<T, E>,
        E: From<DieselError>,
    {
        match self {
            Db::Pg(c) => c.write_tx(|c| f(&mut Db::Pg(c))),
            Db::Sqlite(c) => c.write_tx(|c| f(&mut Db::Sqlite(c))),
        }
    }

    /// Runs `f`'s reads on one snapshot of the database, so that rows one transaction
    /// changed together are seen together (an attempt that succeeded beside its invoice
    /// paid, never before it): a read-only repeatable-read transaction on PostgreSQL, a
    /// deferred one on SQLite (whose snapshot is taken at its first read).
    pub fn snapshot<T, E, F>(&mut self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Db<'_>) -> Result<T, E>,
        E: From<DieselError>,
    {
        use diesel::Connection;
        match self {
            Db::Pg(c) => c
                .build_transaction()
                .read_only()
                .repeatable_read()
                .run(|c| f(&mut Db::Pg(c))),
            Db::Sqlite(c) => c.transaction(|c| f(&mut Db::Sqlite(c))),
        }
    }
}
