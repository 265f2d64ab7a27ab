//! The OAuth 2.0 token endpoint: client-credentials grants signed with the current key,
//! and the throttle on failed client authentications. Tokens own no tables (store.rs reads
//! the clients' and accounts') and emit no events.

pub(crate) mod commands;
pub(crate) mod domain;
pub(crate) mod issuer;
pub(crate) mod routes;
pub(crate) mod store;

pub use crate::throttles::failures::ThrottleSettings;
