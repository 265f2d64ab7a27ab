//! Notifications' one error: what went wrong in a command, said by its variant. A route
//! turns it into the `ApiError` it answers with (`?`, through `From`), which keeps status,
//! shape and message in this one place.

use coffer_http::ApiError;
use coffer_model::validation::FieldError;
use coffer_store::StoreError;
use diesel::result::Error as DieselError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum NotificationsError {
    /// The request names properties that are wrong, each of them (400).
    #[error("the request is not valid: {0:?}")]
    Invalid(Vec<FieldError>),
    /// The thing named ("Webhook endpoint", "Account") is not there for this caller (404).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A value Coffer wrote itself could not be read back (500; the cause is logged).
    #[error("{0}")]
    Internal(String),
    /// The database failed; the store says how (500, 503 or 429).
    #[error(transparent)]
    Db(#[from] StoreError),
    /// An answer a shared helper already gave (idempotency, the caller's organisations),
    /// carried to the route unchanged; notifications' own failures take the variants above.
    #[error(transparent)]
    Api(#[from] ApiError),
}

impl NotificationsError {
    /// A property that is wrong, with why.
    pub(crate) fn invalid(property: &str, message: impl Into<String>) -> Self {
        NotificationsError::Invalid(vec![FieldError::not_valid(property, message)])
    }

    /// For values that cannot fail in practice (a uuid Coffer wrote).
    pub(crate) fn internal(cause: impl std::fmt::Display) -> Self {
        NotificationsError::Internal(cause.to_string())
    }
}

impl From<DieselError> for NotificationsError {
    fn from(e: DieselError) -> Self {
        NotificationsError::Db(StoreError::Query(e))
    }
}

impl From<NotificationsError> for ApiError {
    fn from(e: NotificationsError) -> Self {
        match e {
            NotificationsError::Invalid(errors) => ApiError::validation(errors),
            NotificationsError::NotFound(what) => ApiError::not_found(what),
            NotificationsError::Internal(cause) => ApiError::internal(cause),
            NotificationsError::Db(e) => ApiError::from(e),
            NotificationsError::Api(e) => e,
        }
    }
}
