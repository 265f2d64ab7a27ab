//! Identity's rules, free of HTTP and SQL: client secrets, token claims, which signing keys
//! are published, what a valid organisation, account or address is, and when failed
//! client authentications are throttled.

pub mod client_secret;
pub mod directory;
pub mod failure_window;
pub mod grants;
pub mod key_policy;
