//! Identity's background loops, all of them: what `Module::spawn_workers` starts.
//!
//! - the event relay (`EventWiring`, built in lib.rs): publishes the outbox.
//! - `key_reload`: rereads the signing keys, so a rotation made elsewhere arrives here.
//! - `code_purge`: forgets authorization codes long expired.

mod code_purge;
mod key_reload;

use coffer_events::EventWiring;
use tokio::task::JoinHandle;

use crate::state::IdentityState;

pub(crate) fn spawn(state: &IdentityState, events: &EventWiring) -> Vec<JoinHandle<()>> {
    let mut started = events.spawn();
    started.push(key_reload::spawn(state));
    started.push(code_purge::spawn(state));
    started
}
