//! Identity's background loops, all of them: what `Module::spawn_workers` starts.
//!
//! - the event relay (`EventWiring`, built in lib.rs): publishes the outbox.
//! - `key_reload`: rereads the signing keys, so a rotation made elsewhere arrives here.
//! - `code_purge`: forgets authorization codes long expired.

mod code_purge;
mod key_reload;

use coffer_events::EventWiring;
use coffer_http::workers::{Worker, start_all};
use tokio::task::JoinHandle;

use crate::state::IdentityState;

pub(crate) const WORKERS: &[Worker<IdentityState>] = &[
    Worker {
        name: "key_reload",
        description: "rereads the signing keys, so a rotation made elsewhere arrives here",
        start: |s| Some(key_reload::spawn(s)),
    },
    Worker {
        name: "code_purge",
        description: "forgets authorization codes long expired",
        start: |s| Some(code_purge::spawn(s)),
    },
];

/// Starts the event relay, then every worker of [`WORKERS`].
pub(crate) fn spawn(state: &IdentityState, events: &EventWiring) -> Vec<JoinHandle<()>> {
    start_all("identity", events.spawn(), WORKERS, state)
}
