//! API clients: who may ask for a token, with which secret, for which organisations.
//! Operators create them (`coffer admin`); the token endpoint (tokens/) reads them. They
//! have no HTTP routes of their own and emit no events, so this feature has neither room.

pub(crate) mod commands;
pub(crate) mod domain;
pub(crate) mod store;

pub use commands::NewClient;
pub use domain::ClientAccess;
