//! Reconciliation's one error: what went wrong in a command, said by its variant. The
//! failures every service shares are coffer_error's `CommonError`; reconciliation adds a
//! row changed meanwhile and a setting not made. A route turns it into the `ApiError` it
//! answers with (`?`, through the `From` below), so status, shape and message are decided
//! here and nowhere else; a worker logs it and tries the file again later.
//! Reconciliation's event consumers call no command that returns it.

use coffer_error::CommonError;
use coffer_http::ApiError;

#[derive(Debug, thiserror::Error)]
pub enum ReconciliationError {
    /// Invalid, not found, a conflict, an internal or a database failure, or a shared
    /// helper's answer.
    #[error(transparent)]
    Common(#[from] CommonError),
    /// A row changed between reading and writing it (409): another writer won a race,
    /// and another try reads the new row. The message says what to do.
    #[error("{0}")]
    ChangedMeanwhile(&'static str),
    /// A setting the request needs is not made (503); the message names it.
    #[error("{0}")]
    NotConfigured(&'static str),
}

coffer_error::service_error!(ReconciliationError);

impl ReconciliationError {
    /// The message a caller would have been answered (a bare "Internal Server Error" for
    /// what goes to the log instead): what a source shows of a file its poll left.
    pub fn message(self) -> String {
        ApiError::from(self).message().to_owned()
    }
}

impl From<ReconciliationError> for ApiError {
    fn from(e: ReconciliationError) -> Self {
        match e {
            ReconciliationError::Common(e) => e.into(),
            ReconciliationError::ChangedMeanwhile(message) => ApiError::conflict(message),
            ReconciliationError::NotConfigured(message) => ApiError::unavailable(message),
        }
    }
}
