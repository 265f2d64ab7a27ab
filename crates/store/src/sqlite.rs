use diesel::SqliteConnection;
use diesel::connection::SimpleConnection;
use diesel::r2d2::{CustomizeConnection, Error as R2d2Error};

/// Per-connection SQLite settings. WAL lets readers run beside the single writer, and the
/// busy timeout makes a second writer (another pool connection, or `coffer admin` while
/// the server runs) wait instead of failing at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SqlitePragmas {
    /// A connection of the readers' pool: any write on it fails.
    pub(crate) query_only: bool,
}

/// How long a writer waits for the write lock before its statement fails as busy.
pub(crate) const BUSY_TIMEOUT: &str = "PRAGMA busy_timeout = 10000";

impl CustomizeConnection<SqliteConnection, R2d2Error> for SqlitePragmas {
    fn on_acquire(&self, conn: &mut SqliteConnection) -> Result<(), R2d2Error> {
        // Checkpoints run beside the writers (`checkpoint_forever`), not inside the commit
        // that happens to fill the log, where every queued writer would wait on its fsync.
        // Pages are read through a memory map: each write elsewhere empties a connection's
        // own page cache, and reading the pages again with read(2) copied them every time
        // (a profile of `coffer dev` under load spent a fifth of its time there). The map
        // is address space, not memory.
        conn.batch_execute(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             PRAGMA foreign_keys = ON;
             PRAGMA wal_autocheckpoint = 0;
             PRAGMA mmap_size = 1073741824;",
        )
        .and_then(|()| conn.batch_execute(BUSY_TIMEOUT))
        .and_then(|()| match self.query_only {
            true => conn.batch_execute("PRAGMA query_only = ON"),
            false => Ok(()),
        })
        .map_err(R2d2Error::QueryError)
    }
}

/// How often the write-ahead log is copied back into the database.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Copies the write-ahead log into the database every half second, as long as `alive`
/// does: a passive checkpoint takes no lock a writer needs, so requests never wait for it.
pub(crate) fn checkpoint_forever(
    pool: diesel::r2d2::Pool<diesel::r2d2::ConnectionManager<SqliteConnection>>,
    alive: std::sync::Weak<()>,
) {
    let spawned = std::thread::Builder::new()
        .name("sqlite-checkpoint".into())
        .spawn(move || {
            while alive.upgrade().is_some() {
                std::thread::sleep(CHECKPOINT_EVERY);
                if let Ok(mut conn) = pool.get()
                    && let Err(e) = conn.batch_execute("PRAGMA wal_checkpoint(PASSIVE)")
                {
                    tracing::warn!(error = %e, "checkpointing the SQLite log failed");
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "no SQLite checkpoint thread; the log grows until restart");
    }
}
