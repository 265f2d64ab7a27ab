//! Notifications' one error: what went wrong in a command. Its failures are the ones every
//! service shares (coffer_error's `CommonError`); a route turns it into the `ApiError` it
//! answers with (`?`, through `From`), which keeps status, shape and message in one place.

use coffer_error::CommonError;
use coffer_http::ApiError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum NotificationsError {
    /// Invalid, not found, an internal or a database failure, or a shared helper's answer.
    #[error(transparent)]
    Common(#[from] CommonError),
}

coffer_error::service_error!(NotificationsError);

impl From<NotificationsError> for ApiError {
    fn from(e: NotificationsError) -> Self {
        match e {
            NotificationsError::Common(e) => e.into(),
        }
    }
}
