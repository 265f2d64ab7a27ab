//! Onboarding's background loops, all of them: the event relay and the consumers
//! (`EventWiring`, built in lib.rs). Nothing else runs in the background: an execution
//! that failed halfway is finished by the next request to execute it.

use coffer_events::EventWiring;
use tokio::task::JoinHandle;

pub(crate) fn spawn(events: &EventWiring) -> Vec<JoinHandle<()>> {
    events.spawn()
}
