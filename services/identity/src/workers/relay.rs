//! Publishes the outbox's events to the bus, woken by each commit.

use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::state::IdentityState;

pub(super) fn spawn(state: &IdentityState) -> JoinHandle<()> {
    tokio::spawn(Arc::clone(&state.relay).run())
}
