//! Identity's rules, free of HTTP and SQL: client secrets, token claims, which signing keys
//! are published, and what a valid organisation, account or address is.

pub mod client_secret;
pub mod directory;
pub mod grants;
pub mod key_policy;
