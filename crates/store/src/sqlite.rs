use diesel::SqliteConnection;
use diesel::connection::SimpleConnection;
use diesel::r2d2::{CustomizeConnection, Error as R2d2Error};

/// Per-connection SQLite settings. WAL lets readers run beside the single writer, and the
/// busy timeout makes a second writer (another pool connection, or `coffer admin` while
/// the server runs) wait instead of failing at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SqlitePragmas;

/// How long a writer waits for the write lock before its statement fails as busy.
pub(crate) const BUSY_TIMEOUT: &str = "PRAGMA busy_timeout = 10000";

impl CustomizeConnection<SqliteConnection, R2d2Error> for SqlitePragmas {
    fn on_acquire(&self, conn: &mut SqliteConnection) -> Result<(), R2d2Error> {
        conn.batch_execute(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             PRAGMA foreign_keys = ON;",
        )
        .and_then(|()| conn.batch_execute(BUSY_TIMEOUT))
        .map_err(R2d2Error::QueryError)
    }
}
