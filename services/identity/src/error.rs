//! Identity's one error: what went wrong in a command, said by its variant, whoever called
//! it (a route, `coffer admin`, first-start seeding, onboarding in the same process, tests).
//! The failures every service shares are coffer_error's `CommonError`; identity adds what
//! signing in, tokens and keys meet.
//! A route turns it into the `ApiError` it answers with (`?`, through the `From` below), so
//! status, shape and message are decided here and nowhere else. No event consumer calls
//! identity's commands (the partners copy it keeps is crates/partners' own), so nothing
//! asks yet whether a failure is worth retrying.

use coffer_error::CommonError;
use coffer_http::ApiError;

use crate::keys::KeyringError;
use crate::throttles::failures::ClientRefused;

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// Invalid, not found, a conflict, an internal or a database failure, or a shared
    /// helper's answer (`Caller::require_organisation`).
    #[error(transparent)]
    Common(#[from] CommonError),
    /// A client's id and secret were refused at the token endpoint (`invalid_client`: 401,
    /// or 429 once the client id or the address failed too often).
    #[error("client authentication refused: {0:?}")]
    ClientRefused(ClientRefused),
    /// A user's address and password do not match (401).
    #[error("wrong e-mail address or password")]
    WrongCredentials,
    /// Too many failed sign-ins from the user's address or network; wait this many seconds
    /// (429).
    #[error("too many failed sign-ins; try again in {0} seconds")]
    SignInsThrottled(i64),
    /// An authorization code that cannot be exchanged, and why (`invalid_grant`, 400).
    #[error("invalid grant: {0}")]
    InvalidGrant(&'static str),
    /// Single sign-on needs a signing key and none is loaded yet (503).
    #[error("no signing key is loaded")]
    NoSigningKey,
    #[error(transparent)]
    Keys(#[from] KeyringError),
    #[error("making a signing key needs the master keys (secrets.keys)")]
    NoMasterKey,
    #[error("the system random number generator failed")]
    Random,
    /// Too many passwords being checked at once (users/password.rs).
    #[error("too many passwords are being checked at once; try again shortly")]
    Busy,
    #[error("could not encode the result: {0}")]
    Encode(#[from] serde_json::Error),
}

coffer_error::service_error!(CommandError);

impl From<ClientRefused> for CommandError {
    fn from(refused: ClientRefused) -> Self {
        CommandError::ClientRefused(refused)
    }
}

impl From<CommandError> for ApiError {
    fn from(e: CommandError) -> Self {
        match e {
            CommandError::Common(e) => e.into(),
            CommandError::ClientRefused(ClientRefused::Invalid) => {
                ApiError::unauthorized().with_oauth("invalid_client")
            }
            CommandError::ClientRefused(ClientRefused::Throttled { retry_after }) => {
                ApiError::too_many_requests(
                    format!(
                        "Too many failed client authentications; try again in {retry_after} seconds"
                    ),
                    retry_after,
                )
                .with_oauth("invalid_client")
            }
            CommandError::WrongCredentials => ApiError::unauthorized(),
            CommandError::SignInsThrottled(wait) => ApiError::too_many_requests(
                format!("Too many failed sign-ins; try again in {wait} seconds"),
                u64::try_from(wait).unwrap_or(1),
            ),
            CommandError::InvalidGrant(why) => {
                ApiError::bad_request(format!("invalid grant: {why}")).with_oauth("invalid_grant")
            }
            CommandError::NoSigningKey => ApiError::unavailable("no signing key is loaded"),
            CommandError::Busy => ApiError::unavailable(
                "too many passwords are being checked at once; try again shortly",
            ),
            other => ApiError::internal(other),
        }
    }
}
