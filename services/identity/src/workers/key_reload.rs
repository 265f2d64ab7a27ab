//! Rereads the signing keys every `key_reload`, so a rotation made by another replica or
//! by `coffer admin` reaches this process.

use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::keys::commands::reload;
use crate::state::IdentityState;

pub(super) fn spawn(state: &IdentityState) -> JoinHandle<()> {
    let store = state.store.clone();
    let clock = Arc::clone(&state.clock);
    let keyring = Arc::clone(&state.keyring);
    let every = state.key_reload;
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick is immediate, and the keys were loaded at start.
        tick.tick().await;
        loop {
            tick.tick().await;
            if let Err(e) = reload(&store, clock.as_ref(), &keyring).await {
                tracing::warn!(error = %e, "could not reload signing keys");
            }
        }
    })
}
