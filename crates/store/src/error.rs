use diesel::result::{DatabaseErrorKind, Error as DieselError};

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
}

impl StoreError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, StoreError::Query(DieselError::NotFound))
    }

    /// SQLite's answer when its single write lock stayed taken past the busy timeout: the
    /// database is there but cannot take the write now, which a client may retry.
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            StoreError::Query(DieselError::DatabaseError(_, info))
                if info.message().contains("database is locked")
                    || info.message().contains("database table is locked")
        )
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
