//! SFTP sources against a real SFTP server (asyncssh, started by scripts/sftp.sh; `make
//! test` hands its address and keys over as COFFER_TEST_SFTP): a bank file dropped in the
//! source's directory is read once, settles its direct debit and moves to `processed/`,
//! with a password or a private key; a server showing another host key is refused before
//! anything is read; a restart between two polls reads nothing twice; a file recorded
//! before a crash is read once by the next poll; a file still growing is read only once a
//! poll finds it as the one before did; the waiting row of a file gone from the server is
//! forgotten, that of a file read never; a private address is refused unless allowed; a
//! name listed with control characters is reported without them; a source's password
//! sealed again at start outlives the master key that first sealed it. Each test has its own
//! directory under the server's root.
//!
//! The tests are in reading.rs, refused_servers.rs, restarts.rs and stability.rs; what
//! they share is in server.rs (the test server and its files), setup.rs (the world, a
//! merchant with a direct debit, a source) and polls.rs (waiting for polls and what they
//! read). Each test module takes all of it with `use super::*`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../common/mod.rs"]
mod common;
mod polls;
mod reading;
mod refused_servers;
mod restarts;
mod server;
mod setup;
mod stability;

use std::path::Path;
use std::time::Duration;

use coffer_http::address_policy::AddressPolicy;
use coffer_secrets::Secrets;
use coffer_testkit::master_keys;
use common::*;
use polls::*;
use serde_json::json;
use server::*;
use setup::*;
