//! SFTP sources: Coffer polls the organisation's server every `poll_seconds`, reads each
//! new bank file once, when a poll finds it as the one before did (so not while it is
//! still being written), and moves it to `processed/` (docs/reconciliation.md, "SFTP
//! sources: polling").
//!
//! `domain` decides what is due, what is a bank file, what a file is recorded under, when
//! it is read and which waiting records are forgotten; `client` makes the calls to the
//! server (the address guard, the pinned host key, the sign-in); `commands` is the poll,
//! which `workers/sftp.rs` runs.

pub mod client;
pub mod commands;
pub mod domain;
