//! Connector accounts: an account's accounts at a payment provider, with the provider's
//! secret key and webhook secrets sealed. Set and rotated by `coffer admin connector-account`
//! (docs/payments.md, "Connecting Stripe"); the API never answers a key.

pub mod commands;
pub mod domain;
pub mod store;
