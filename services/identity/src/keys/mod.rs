//! Signing keys: the one that signs access tokens, the ones still published so that
//! tokens in flight keep verifying, and how each is sealed in its row. Keys emit no
//! events: verifiers learn of a rotation from the JWKS, replicas by rereading the table.

pub(crate) mod commands;
pub(crate) mod domain;
pub mod keyring;
pub(crate) mod routes;
pub mod store;

pub use keyring::{Keyring, KeyringError};
