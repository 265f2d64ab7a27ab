//! Billing's one error: what went wrong in a command, said by its variant. The failures
//! every service shares are coffer_error's `CommonError`; billing adds only a row changed
//! meanwhile. A route turns it into the `ApiError` it answers with (`?`, through `From`);
//! billing's event consumer turns it into a `HandlerError` by [`BillingError::retryable`].
//! Neither decision is taken from an HTTP status.

use coffer_error::CommonError;
use coffer_events::HandlerError;
use coffer_http::ApiError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum BillingError {
    /// Invalid, not found, forbidden, a conflict, an internal or a database failure.
    #[error(transparent)]
    Common(#[from] CommonError),
    /// A row changed between reading and writing it (409): another writer won a race,
    /// and another try reads the new row. The message names the row.
    #[error("{0}")]
    ChangedMeanwhile(&'static str),
}

coffer_error::service_error!(BillingError);

impl BillingError {
    /// Whether the same work, tried again, may succeed: a database error may be passing,
    /// and a row changed meanwhile is read anew.
    pub(crate) fn retryable(&self) -> bool {
        match self {
            BillingError::Common(e) => e.retryable(),
            BillingError::ChangedMeanwhile(_) => true,
        }
    }
}

impl From<BillingError> for ApiError {
    fn from(e: BillingError) -> Self {
        match e {
            BillingError::Common(e) => e.into(),
            BillingError::ChangedMeanwhile(message) => ApiError::conflict(message),
        }
    }
}

impl From<BillingError> for HandlerError {
    fn from(e: BillingError) -> Self {
        let retryable = e.retryable();
        HandlerError::judged(e, retryable)
    }
}
