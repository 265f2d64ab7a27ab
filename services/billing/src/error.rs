//! Billing's one error for its commands: coffer_http's `Failure`, an `ApiError` to answer
//! with or a database error to log (a 500). What the domain refuses and what an event
//! handler must tell the consumer are converted here, in one place, so that no command
//! invents an error type of its own.

use coffer_events::HandlerError;
use coffer_http::ApiError;
pub(crate) use coffer_http::Failure;

use crate::subscriptions::domain::Refusal;

impl From<Refusal> for Failure {
    fn from(r: Refusal) -> Self {
        Failure::Api(match r {
            Refusal::Invalid(errors) => ApiError::validation(errors),
            Refusal::Conflict(message) => ApiError::conflict(message),
        })
    }
}

/// A row changed between reading and writing it: worth another try.
pub(crate) fn changed_meanwhile(what: &str) -> Failure {
    Failure::Api(ApiError::conflict(format!("The {what} changed meanwhile")))
}

/// How a command's failure reads to the event consumer: a database error or a conflict is
/// retried (another writer won a race), anything else will not get better by retrying.
pub(crate) fn for_handler(f: Failure) -> HandlerError {
    match f {
        Failure::Db(e) => HandlerError::Query(e),
        Failure::Api(e) if e.status().as_u16() == 409 => HandlerError::Transient(e.to_string()),
        Failure::Api(e) => HandlerError::Permanent(e.to_string()),
    }
}
