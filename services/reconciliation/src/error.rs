//! Reconciliation's one error: what went wrong in a command, said by its variant. A route
//! turns it into the `ApiError` it answers with (`?`, through the `From` below), so status,
//! shape and message are decided here and nowhere else; a worker logs it and tries the
//! file again later. Reconciliation's event consumers call no command that returns it.

use coffer_http::ApiError;
use coffer_model::validation::FieldError;
use coffer_store::StoreError;
use diesel::result::Error as DieselError;

#[derive(Debug, thiserror::Error)]
pub enum ReconciliationError {
    /// The request names properties that are wrong, each of them (400).
    #[error("the request is not valid: {0:?}")]
    Invalid(Vec<FieldError>),
    /// The thing named ("Blueprint", "Account") is not there for this caller (404).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The state refuses the request; the message says why (409).
    #[error("{0}")]
    Conflict(&'static str),
    /// A row changed between reading and writing it (409): another writer won a race,
    /// and another try reads the new row. The message says what to do.
    #[error("{0}")]
    ChangedMeanwhile(&'static str),
    /// A setting the request needs is not made (503); the message names it.
    #[error("{0}")]
    NotConfigured(&'static str),
    /// A value Coffer wrote itself could not be read back, or a task of its own failed
    /// (500; the cause is logged).
    #[error("{0}")]
    Internal(String),
    /// The database failed; the store says how (500, 503 or 429).
    #[error(transparent)]
    Db(#[from] StoreError),
    /// An answer a shared helper already gave (idempotency, `Caller::require_account`,
    /// body reading), carried to the route unchanged; reconciliation's own failures take
    /// the variants above.
    #[error(transparent)]
    Api(#[from] ApiError),
}

impl ReconciliationError {
    /// A property that is wrong, with why.
    pub fn invalid(property: &str, message: impl Into<String>) -> Self {
        ReconciliationError::Invalid(vec![FieldError::not_valid(property, message)])
    }

    /// For values that cannot fail in practice (a uuid Coffer wrote, JSON of its own types).
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ReconciliationError::Internal(cause.to_string())
    }
}

impl ReconciliationError {
    /// The message a caller would have been answered (a bare "Internal Server Error" for
    /// what goes to the log instead): what a source shows of a file its poll left.
    pub fn message(self) -> String {
        ApiError::from(self).message().to_owned()
    }
}

impl From<DieselError> for ReconciliationError {
    fn from(e: DieselError) -> Self {
        ReconciliationError::Db(StoreError::from(e))
    }
}

impl From<ReconciliationError> for ApiError {
    fn from(e: ReconciliationError) -> Self {
        match e {
            ReconciliationError::Invalid(errors) => ApiError::validation(errors),
            ReconciliationError::NotFound(what) => ApiError::not_found(what),
            ReconciliationError::Conflict(message) => ApiError::conflict(message),
            ReconciliationError::ChangedMeanwhile(message) => ApiError::conflict(message),
            ReconciliationError::NotConfigured(message) => ApiError::unavailable(message),
            ReconciliationError::Internal(cause) => ApiError::internal(cause),
            ReconciliationError::Db(e) => ApiError::from(e),
            ReconciliationError::Api(e) => e,
        }
    }
}
