//! The OAuth 2.0 token endpoint: client-credentials grants signed with the current key,
//! and the throttle on failed client authentications.

pub(crate) mod commands;
pub mod domain;
pub(crate) mod issuer;
pub(crate) mod routes;
pub(crate) mod store;
pub mod throttle;

pub use throttle::ThrottleSettings;
