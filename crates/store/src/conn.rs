use diesel::r2d2::{ConnectionManager, PooledConnection};
use diesel::{PgConnection, SqliteConnection};

/// One pooled connection of either backend; open it with [`crate::db_run!`].
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
}
