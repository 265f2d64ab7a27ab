//! Payments' one error: what went wrong in a command, said by its variant. A route turns
//! it into the `ApiError` it answers with (`?`, through `From`, which keeps each status,
//! code and message in this one place); a consumer turns it into a `HandlerError` by
//! [`PaymentsError::retryable`]. Neither decision is taken from an HTTP status.

use coffer_events::HandlerError;
use coffer_http::{ApiError, Failure};
use coffer_model::validation::FieldError;
use coffer_store::StoreError;
use diesel::result::Error as DieselError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum PaymentsError {
    /// The request names properties that are wrong, each of them (400, validation shape).
    /// Its text names none of them: a property's message may quote what was sent (a card
    /// number), which only `ApiError::validation` knows how to blank.
    #[error("the request is not valid ({} properties)", .0.len())]
    Invalid(Vec<FieldError>),
    /// The thing named ("Payment", "Refund") is not there for this caller (404).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The request cannot be done to the thing as it is; the message says why (400).
    #[error("{0}")]
    Refused(String),
    /// The thing's state refuses the request; the message says why (409).
    #[error("{0}")]
    Conflict(String),
    /// The payment provider gave no answer in time, so nothing was done; the message
    /// says so (503). Asked again, it may answer.
    #[error("{0}")]
    ProviderSilent(&'static str),
    /// A value Coffer wrote itself could not be read back (500; the cause is logged).
    #[error("{0}")]
    Internal(String),
    /// The database failed; the store says how (500, 503 or 429).
    #[error(transparent)]
    Db(#[from] StoreError),
    /// An answer a shared helper already gave (idempotency, `Caller::require_account`,
    /// body parsing), carried to the route unchanged. It exists so payments does not
    /// re-read those helpers' answers; payments' own failures take the variants above.
    #[error(transparent)]
    Api(#[from] ApiError),
}

impl PaymentsError {
    /// A property that is wrong, with why.
    pub(crate) fn invalid(property: &str, message: impl Into<String>) -> Self {
        PaymentsError::Invalid(vec![FieldError::not_valid(property, message)])
    }

    /// For values that cannot fail in practice (a uuid Coffer wrote, JSON of its own types).
    pub(crate) fn internal(cause: impl std::fmt::Display) -> Self {
        PaymentsError::Internal(cause.to_string())
    }

    /// Whether the same work, tried again, may succeed: a database error may be passing,
    /// and a provider that did not answer may answer. The request and the state it met
    /// stay what they are.
    pub(crate) fn retryable(&self) -> bool {
        match self {
            PaymentsError::Db(_) | PaymentsError::ProviderSilent(_) => true,
            PaymentsError::Invalid(_)
            | PaymentsError::NotFound(_)
            | PaymentsError::Refused(_)
            | PaymentsError::Conflict(_)
            | PaymentsError::Internal(_)
            | PaymentsError::Api(_) => false,
        }
    }
}

impl From<DieselError> for PaymentsError {
    fn from(e: DieselError) -> Self {
        PaymentsError::Db(StoreError::Query(e))
    }
}

// A transaction's closure may still answer with coffer_http's Failure (a shared helper's
// ApiError, or a query's error); each keeps its meaning here.
impl From<Failure> for PaymentsError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Api(e) => PaymentsError::Api(e),
            Failure::Db(e) => PaymentsError::from(e),
        }
    }
}

impl From<PaymentsError> for ApiError {
    fn from(e: PaymentsError) -> Self {
        match e {
            PaymentsError::Invalid(errors) => ApiError::validation(errors),
            PaymentsError::NotFound(what) => ApiError::not_found(what),
            PaymentsError::Refused(message) => ApiError::bad_request(message),
            PaymentsError::Conflict(message) => ApiError::conflict(message),
            PaymentsError::ProviderSilent(message) => ApiError::unavailable(message),
            PaymentsError::Internal(cause) => ApiError::internal(cause),
            PaymentsError::Db(e) => ApiError::from(e),
            PaymentsError::Api(e) => e,
        }
    }
}

// The charging steps' transactions (intents.rs, outcome.rs) answer coffer_http's Failure,
// which write_contended and retry_contended read: a query's error stays one there, so a
// contended write is still tried again.
impl From<PaymentsError> for Failure {
    fn from(e: PaymentsError) -> Self {
        match e {
            PaymentsError::Db(StoreError::Query(e)) => Failure::Db(e),
            e => Failure::Api(ApiError::from(e)),
        }
    }
}

impl From<PaymentsError> for HandlerError {
    fn from(e: PaymentsError) -> Self {
        match e {
            PaymentsError::Db(StoreError::Query(e)) => HandlerError::Query(e),
            e if e.retryable() => HandlerError::Transient(e.to_string()),
            e => HandlerError::Permanent(e.to_string()),
        }
    }
}
