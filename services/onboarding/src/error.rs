//! How onboarding's use cases fail, and how that is answered over HTTP.

use coffer_http::ApiError;
use coffer_model::validation::FieldError;
use coffer_store::StoreError;
use coffer_store::resealing::PassError;

#[derive(Debug, thiserror::Error)]
pub enum OnboardingError {
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Forbidden(&'static str),
    /// No credentials were given where the caller must prove who they are (401).
    #[error("credentials required")]
    Unauthorized,
    /// The caller asks more often than it may; it may ask again after `wait` seconds (429).
    #[error("{message}")]
    Throttled { message: String, wait: u64 },
    /// A service onboarding needs (the captcha's verifier) cannot be reached (503).
    #[error("{0}")]
    Unavailable(&'static str),
    /// Identity refused or could not be reached; the answer to pass on.
    #[error("identity: {}", .0.message())]
    Identity(ApiError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Internal(String),
    /// An answer a shared helper already gave (idempotency, body parsing), carried to the
    /// route unchanged; onboarding's own failures take the variants above.
    #[error(transparent)]
    Api(#[from] ApiError),
}

impl From<diesel::result::Error> for OnboardingError {
    fn from(e: diesel::result::Error) -> Self {
        OnboardingError::Store(StoreError::Query(e))
    }
}

/// The start-up pass that seals stored values again: a value no key opens is named.
impl From<PassError> for OnboardingError {
    fn from(e: PassError) -> Self {
        match e {
            PassError::Store(e) => OnboardingError::Store(e),
            unopened => OnboardingError::Internal(unopened.to_string()),
        }
    }
}

impl From<OnboardingError> for ApiError {
    fn from(e: OnboardingError) -> Self {
        match e {
            OnboardingError::Invalid(items) => ApiError::validation(items),
            OnboardingError::NotFound(what) => ApiError::not_found(what),
            OnboardingError::Conflict(why) => ApiError::conflict(why),
            OnboardingError::Forbidden(_) => ApiError::forbidden(),
            OnboardingError::Unauthorized => ApiError::unauthorized(),
            OnboardingError::Throttled { message, wait } => {
                ApiError::too_many_requests(message, wait)
            }
            OnboardingError::Unavailable(why) => ApiError::unavailable(why),
            OnboardingError::Identity(e) => e,
            OnboardingError::Store(e) => e.into(),
            OnboardingError::Internal(why) => ApiError::internal(why),
            OnboardingError::Api(e) => e,
        }
    }
}
