//! Payments' one error: what went wrong in a command, said by its variant. The failures
//! every service shares are coffer_error's `CommonError`; payments adds a request refused
//! as the thing stands and a provider that stayed silent. A route turns
//! it into the `ApiError` it answers with (`?`, through `From`, which keeps each status,
//! code and message in this one place); a consumer turns it into a `HandlerError` by
//! [`PaymentsError::retryable`]. Neither decision is taken from an HTTP status.

use coffer_error::CommonError;
use coffer_events::HandlerError;
use coffer_http::{ApiError, Failure};
use coffer_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum PaymentsError {
    /// Invalid, not found, a conflict, an internal or a database failure, or a shared
    /// helper's answer (idempotency, `Caller::require_account`, body parsing).
    #[error(transparent)]
    Common(#[from] CommonError),
    /// The request cannot be done to the thing as it is; the message says why (400).
    #[error("{0}")]
    Refused(String),
    /// The payment provider gave no answer in time, so nothing was done; the message
    /// says so (503). Asked again, it may answer.
    #[error("{0}")]
    ProviderSilent(&'static str),
}

coffer_error::service_error!(PaymentsError);

impl PaymentsError {
    /// Whether the same work, tried again, may succeed: a database error may be passing,
    /// and a provider that did not answer may answer. The request and the state it met
    /// stay what they are.
    pub(crate) fn retryable(&self) -> bool {
        match self {
            PaymentsError::Common(e) => e.retryable(),
            PaymentsError::ProviderSilent(_) => true,
            PaymentsError::Refused(_) => false,
        }
    }
}

// A transaction's closure may still answer with coffer_http's Failure (a shared helper's
// ApiError, or a query's error); each keeps its meaning here.
impl From<Failure> for PaymentsError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Api(e) => PaymentsError::from(e),
            Failure::Db(e) => PaymentsError::from(e),
        }
    }
}

impl From<PaymentsError> for ApiError {
    fn from(e: PaymentsError) -> Self {
        match e {
            PaymentsError::Common(e) => e.into(),
            PaymentsError::Refused(message) => ApiError::bad_request(message),
            PaymentsError::ProviderSilent(message) => ApiError::unavailable(message),
        }
    }
}

// The charging steps' transactions (intents.rs, outcome.rs) answer coffer_http's Failure,
// which write_contended and retry_contended read: a query's error stays one there, so a
// contended write is still tried again.
impl From<PaymentsError> for Failure {
    fn from(e: PaymentsError) -> Self {
        match e {
            PaymentsError::Common(CommonError::Db(StoreError::Query(e))) => Failure::Db(e),
            e => Failure::Api(ApiError::from(e)),
        }
    }
}

impl From<PaymentsError> for HandlerError {
    fn from(e: PaymentsError) -> Self {
        let retryable = e.retryable();
        HandlerError::judged(e, retryable)
    }
}
