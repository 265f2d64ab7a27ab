//! Identity's one error: what went wrong in a command, said by its variant, whoever called
//! it (a route, `coffer admin`, first-start seeding, onboarding in the same process, tests).
//! A route turns it into the `ApiError` it answers with (`?`, through the `From` below), so
//! status, shape and message are decided here and nowhere else. No event consumer calls
//! identity's commands (the partners copy it keeps is crates/partners' own), so nothing
//! asks yet whether a failure is worth retrying.

use coffer_http::ApiError;
use coffer_model::validation::FieldError;
use coffer_store::StoreError;

use crate::keys::KeyringError;
use crate::throttles::failures::ClientRefused;

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The input names properties that are wrong, each of them (400).
    #[error("invalid input: {}", describe(.0))]
    Invalid(Vec<FieldError>),
    /// The thing named is not there (404).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The state refuses the request; the message says why (409).
    #[error("{0}")]
    Conflict(&'static str),
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
    Store(#[from] StoreError),
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
    /// A value Coffer wrote itself could not be read back, or signing failed (500; the
    /// cause is logged).
    #[error("{0}")]
    Internal(String),
    /// An answer a shared helper already gave (`Caller::require_organisation`), carried
    /// to the route unchanged; identity's own failures take the variants above.
    #[error(transparent)]
    Api(#[from] ApiError),
}

impl CommandError {
    /// For values that cannot fail in practice (a uuid Coffer wrote).
    pub(crate) fn internal(cause: impl std::fmt::Display) -> Self {
        CommandError::Internal(cause.to_string())
    }
}

impl From<ClientRefused> for CommandError {
    fn from(refused: ClientRefused) -> Self {
        CommandError::ClientRefused(refused)
    }
}

fn describe(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(|e| format!("{}: {}", e.property, e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

impl From<CommandError> for ApiError {
    fn from(e: CommandError) -> Self {
        match e {
            CommandError::Invalid(errors) => ApiError::validation(errors),
            CommandError::NotFound(what) => ApiError::not_found(what),
            CommandError::Conflict(why) => ApiError::conflict(why),
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
            CommandError::Store(e) => e.into(),
            CommandError::Api(e) => e,
            other => ApiError::internal(other),
        }
    }
}
