//! Identity's background loops, all of them: what `Module::spawn_workers` starts.

mod key_reload;
mod relay;

use tokio::task::JoinHandle;

use crate::state::IdentityState;

pub(crate) fn spawn(state: &IdentityState) -> Vec<JoinHandle<()>> {
    vec![relay::spawn(state), key_reload::spawn(state)]
}
