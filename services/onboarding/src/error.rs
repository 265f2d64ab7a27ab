//! Onboarding's one error: how its use cases fail, and how that is answered over HTTP. The
//! failures every service shares are coffer_error's `CommonError`; onboarding adds what a
//! public process meets (no credentials, throttling, a captcha verifier that cannot be
//! reached) and identity's answers, passed on.

use coffer_error::CommonError;
use coffer_http::ApiError;
use coffer_store::resealing::PassError;

#[derive(Debug, thiserror::Error)]
pub enum OnboardingError {
    /// Invalid, not found, forbidden, a conflict, an internal or a database failure, or a
    /// shared helper's answer.
    #[error(transparent)]
    Common(#[from] CommonError),
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
}

coffer_error::service_error!(OnboardingError);

/// The start-up pass that seals stored values again: a value no key opens is named.
impl From<PassError> for OnboardingError {
    fn from(e: PassError) -> Self {
        match e {
            PassError::Store(e) => OnboardingError::from(e),
            unopened => OnboardingError::internal(unopened),
        }
    }
}

impl From<OnboardingError> for ApiError {
    fn from(e: OnboardingError) -> Self {
        match e {
            OnboardingError::Common(e) => e.into(),
            OnboardingError::Unauthorized => ApiError::unauthorized(),
            OnboardingError::Throttled { message, wait } => {
                ApiError::too_many_requests(message, wait)
            }
            OnboardingError::Unavailable(why) => ApiError::unavailable(why),
            OnboardingError::Identity(e) => e,
        }
    }
}
