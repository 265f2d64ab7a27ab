//! SFTP sources: Coffer polls the organisation's server every `poll_seconds`, reads each
//! new bank file once and moves it to `processed/` (docs/reconciliation.md, "Sources").
//!
//! `domain` decides what is due, what is a bank file and what a file is recorded under;
//! `client` makes the calls to the server (the address guard, the pinned host key, the
//! sign-in); `commands` is the poll, which `workers/sftp.rs` runs.

pub mod client;
pub mod commands;
pub mod domain;
