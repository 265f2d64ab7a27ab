//! The failures every service's commands share, said once. Each service's one error type
//! wraps [`CommonError`] (`#[error(transparent)] Common(#[from] CommonError)`) beside the
//! variants only it has (a provider that stays silent, a row changed meanwhile), and
//! [`service_error!`](crate::service_error) gives it the constructors and conversions, so
//! a command writes `BillingError::not_found("Invoice")` and a route answers with `?`.

use std::borrow::Cow;

use coffer_model::card_numbers::without_card_numbers;
use coffer_model::validation::FieldError;
use coffer_store::StoreError;

use crate::ApiError;

#[derive(Debug, thiserror::Error)]
pub enum CommonError {
    /// The request names properties that are wrong, each of them (400, validation shape).
    /// The text (for a log, a dead letter or `coffer admin`) names each property with why,
    /// card numbers blanked as in the answer: a message may quote what was sent.
    #[error("the request is not valid: {}", describe(.0))]
    Invalid(Vec<FieldError>),
    /// The thing named ("Invoice", "Payment") is not there for this caller (404).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The caller may not do this (403).
    #[error("forbidden")]
    Forbidden,
    /// The thing's state refuses the request; the message says why (409).
    #[error("{0}")]
    Conflict(Cow<'static, str>),
    /// A value Coffer wrote itself could not be read back, or a task of its own failed
    /// (500; the cause is logged, never answered).
    #[error("{0}")]
    Internal(String),
    /// The database failed; the store says how (500, 503 or 429).
    #[error(transparent)]
    Db(#[from] StoreError),
    /// An answer a shared helper already gave (idempotency, the caller's organisations,
    /// body reading), carried to the route unchanged; a service's own failures take the
    /// variants above or its own.
    #[error(transparent)]
    Api(#[from] ApiError),
}

impl CommonError {
    /// Whether the same work, tried again, may succeed: only a database error may be
    /// passing. The request and the state it met stay what they are.
    pub fn retryable(&self) -> bool {
        matches!(self, CommonError::Db(_))
    }
}

fn describe(errors: &[FieldError]) -> String {
    let described = errors
        .iter()
        .map(|e| format!("{}: {}", e.property, e.message))
        .collect::<Vec<_>>()
        .join("; ");
    without_card_numbers(&described)
}

impl From<diesel::result::Error> for CommonError {
    fn from(e: diesel::result::Error) -> Self {
        CommonError::Db(StoreError::from(e))
    }
}

impl From<CommonError> for ApiError {
    fn from(e: CommonError) -> Self {
        match e {
            CommonError::Invalid(errors) => ApiError::validation(errors),
            CommonError::NotFound(what) => ApiError::not_found(what),
            CommonError::Forbidden => ApiError::forbidden(),
            CommonError::Conflict(message) => ApiError::conflict(message),
            CommonError::Internal(cause) => ApiError::internal(cause),
            CommonError::Db(e) => ApiError::from(e),
            CommonError::Api(e) => e,
        }
    }
}

/// Gives a service's error type, which wraps [`CommonError`] in a variant `Common`, the
/// common constructors (`invalid`, `invalid_all`, `not_found`, `forbidden`, `conflict`,
/// `internal`) and `From` the store's, the database's and a shared helper's errors, so `?`
/// carries each into it.
#[macro_export]
macro_rules! service_error {
    ($error:ident) => {
        #[allow(dead_code)]
        impl $error {
            /// A property that is wrong, with why (400).
            pub(crate) fn invalid(property: &str, message: impl Into<String>) -> Self {
                Self::invalid_all(vec![$crate::FieldError::not_valid(property, message)])
            }

            /// Every property that is wrong (400).
            pub(crate) fn invalid_all(errors: Vec<$crate::FieldError>) -> Self {
                $error::Common($crate::CommonError::Invalid(errors))
            }

            /// The thing named is not there for this caller (404).
            pub(crate) fn not_found(what: &'static str) -> Self {
                $error::Common($crate::CommonError::NotFound(what))
            }

            /// The caller may not do this (403).
            pub(crate) fn forbidden() -> Self {
                $error::Common($crate::CommonError::Forbidden)
            }

            /// The thing's state refuses the request, for the reason given (409).
            pub(crate) fn conflict(message: impl Into<::std::borrow::Cow<'static, str>>) -> Self {
                $error::Common($crate::CommonError::Conflict(message.into()))
            }

            /// For values that cannot fail in practice (a uuid Coffer wrote, JSON of its
            /// own types); the cause is logged, never answered (500).
            pub(crate) fn internal(cause: impl ::std::fmt::Display) -> Self {
                $error::Common($crate::CommonError::Internal(cause.to_string()))
            }
        }

        impl From<$crate::__store::StoreError> for $error {
            fn from(e: $crate::__store::StoreError) -> Self {
                $error::Common($crate::CommonError::Db(e))
            }
        }

        impl From<$crate::__diesel::result::Error> for $error {
            fn from(e: $crate::__diesel::result::Error) -> Self {
                $error::Common($crate::CommonError::from(e))
            }
        }

        impl From<$crate::ApiError> for $error {
            fn from(e: $crate::ApiError) -> Self {
                $error::Common($crate::CommonError::Api(e))
            }
        }
    };
}
