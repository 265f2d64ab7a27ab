//! Billing's one error: what went wrong in a command, said by its variant. A route turns
//! it into the `ApiError` it answers with (`?`, through `From`); billing's event consumer
//! turns it into a `HandlerError` by [`BillingError::retryable`]. Neither decision is
//! taken from an HTTP status.

use coffer_events::HandlerError;
use coffer_http::ApiError;
use coffer_model::validation::FieldError;
use coffer_store::StoreError;
use diesel::result::Error as DieselError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum BillingError {
    /// The request names properties that are wrong, each of them (400).
    #[error("the request is not valid: {0:?}")]
    Invalid(Vec<FieldError>),
    /// The thing named ("Subscription", "Invoice") is not there for this caller (404).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The caller may not do this (403).
    #[error("forbidden")]
    Forbidden,
    /// The thing's state refuses the request; the message says why (409).
    #[error("{0}")]
    Conflict(String),
    /// A row changed between reading and writing it (409): another writer won a race,
    /// and another try reads the new row. The message names the row.
    #[error("{0}")]
    ChangedMeanwhile(&'static str),
    /// A value Coffer wrote itself could not be read back (500; the cause is logged).
    #[error("{0}")]
    Internal(String),
    /// The database failed; the store says how (500, 503 or 429).
    #[error(transparent)]
    Db(#[from] StoreError),
    /// An answer a shared helper already gave (idempotency, `Caller::require_organisation`,
    /// body parsing), carried to the route unchanged. It exists so billing does not
    /// re-read those helpers' answers; billing's own failures take the variants above.
    #[error(transparent)]
    Api(#[from] ApiError),
}

impl BillingError {
    /// A property that is wrong, with why.
    pub(crate) fn invalid(property: &str, message: impl Into<String>) -> Self {
        BillingError::Invalid(vec![FieldError::not_valid(property, message)])
    }

    /// For values that cannot fail in practice (a uuid Coffer wrote).
    pub(crate) fn internal(cause: impl std::fmt::Display) -> Self {
        BillingError::Internal(cause.to_string())
    }

    /// Whether the same work, tried again, may succeed: a database error may be passing,
    /// and a row changed meanwhile is read anew. The request and the state it met stay
    /// what they are.
    pub(crate) fn retryable(&self) -> bool {
        match self {
            BillingError::Db(_) | BillingError::ChangedMeanwhile(_) => true,
            BillingError::Invalid(_)
            | BillingError::NotFound(_)
            | BillingError::Forbidden
            | BillingError::Conflict(_)
            | BillingError::Internal(_)
            | BillingError::Api(_) => false,
        }
    }
}

impl From<DieselError> for BillingError {
    fn from(e: DieselError) -> Self {
        BillingError::Db(StoreError::Query(e))
    }
}

impl From<BillingError> for ApiError {
    fn from(e: BillingError) -> Self {
        match e {
            BillingError::Invalid(errors) => ApiError::validation(errors),
            BillingError::NotFound(what) => ApiError::not_found(what),
            BillingError::Forbidden => ApiError::forbidden(),
            BillingError::Conflict(message) => ApiError::conflict(message),
            BillingError::ChangedMeanwhile(message) => ApiError::conflict(message),
            BillingError::Internal(cause) => ApiError::internal(cause),
            BillingError::Db(e) => ApiError::from(e),
            BillingError::Api(e) => e,
        }
    }
}

impl From<BillingError> for HandlerError {
    fn from(e: BillingError) -> Self {
        match e {
            BillingError::Db(StoreError::Query(e)) => HandlerError::Query(e),
            e if e.retryable() => HandlerError::Transient(e.to_string()),
            e => HandlerError::Permanent(e.to_string()),
        }
    }
}
