//! How a command that changes identity's data fails, whoever called it (`coffer admin`,
//! first-start seeding, tests).

use coffer_model::validation::FieldError;
use coffer_store::StoreError;

use crate::keys::KeyringError;

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("invalid input: {}", describe(.0))]
    Invalid(Vec<FieldError>),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Conflict(&'static str),
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
}

fn describe(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(|e| format!("{}: {}", e.property, e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

impl From<CommandError> for coffer_http::ApiError {
    fn from(e: CommandError) -> Self {
        use coffer_http::ApiError;
        match e {
            CommandError::Invalid(errors) => ApiError::validation(errors),
            CommandError::NotFound(what) => ApiError::not_found(what),
            CommandError::Conflict(why) => ApiError::conflict(why),
            CommandError::Busy => ApiError::unavailable(
                "too many passwords are being checked at once; try again shortly",
            ),
            CommandError::Store(e) => e.into(),
            other => ApiError::internal(other),
        }
    }
}
