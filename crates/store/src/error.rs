use diesel::result::{DatabaseErrorKind, Error as DieselError};

/// Whether PostgreSQL ended a transaction to let a concurrent one through: a deadlock
/// (SQLSTATE 40P01, which diesel does not name) or a serialization failure (40001). The
/// same work, tried again, usually commits.
pub fn is_contention(e: &DieselError) -> bool {
    match e {
        DieselError::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => true,
        DieselError::DatabaseError(_, info) => info.message().contains("deadlock detected"),
        _ => false,
    }
}

/// Whether the server closed the connection (a restart, a failover, an idle timeout): the
/// connection is no good, though another may be.
pub fn is_closed(e: &DieselError) -> bool {
    matches!(
        e,
        DieselError::DatabaseError(
            DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
            _
        )
    )
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database query failed: {0}")]
    Query(#[from] DieselError),
    #[error("no database connection available: {0}")]
    Pool(#[from] r2d2::Error),
    #[error("database migration failed: {0}")]
    Migration(String),
    #[error("invalid database url: {0}")]
    Url(String),
    #[error("cannot prepare the database file {0}")]
    File(String),
    #[error("database task was cancelled")]
    Cancelled,
    /// No connection for a group of writes (the pool's error, as text, for each of them).
    #[error("no database connection available: {0}")]
    Unavailable(String),
    /// The tenant runs as many searches as it may, and as many wait (search_lines.rs).
    #[error("{0} searches of this tenant are running")]
    SearchesBusy(usize),
    /// A search ran past its budget.
    #[error("the search ran past its budget")]
    SearchTimedOut,
}

impl StoreError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, StoreError::Query(DieselError::NotFound))
    }

    /// The database is there but cannot take the write now, which a client may retry:
    /// SQLite's single write lock stayed taken past the busy timeout, or PostgreSQL ended
    /// the transaction to let a concurrent one through (a deadlock, a serialization failure).
    pub fn is_busy(&self) -> bool {
        match self {
            StoreError::Query(e) => {
                is_contention(e)
                    || matches!(e, DieselError::DatabaseError(_, info)
                        if info.message().contains("database is locked")
                            || info.message().contains("database table is locked"))
            }
            _ => false,
        }
    }

    pub fn is_unique_violation(&self) -> bool {
        matches!(
            self,
            StoreError::Query(DieselError::DatabaseError(
                DatabaseErrorKind::UniqueViolation,
                _
            ))
        )
    }
}
