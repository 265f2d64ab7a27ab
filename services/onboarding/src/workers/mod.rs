//! Onboarding's background loops, all of them: the event relay and the consumers
//! (`EventWiring`, built in lib.rs). Nothing else runs in the background: an execution
//! that failed halfway is finished by the next request to execute it.

use coffer_events::EventWiring;
use coffer_http::workers::{Worker, start_all};
use tokio::task::JoinHandle;

/// None: the list is kept so onboarding's workers are listed as every service's are.
pub(crate) const WORKERS: &[Worker<()>] = &[];

/// Starts the event relay and consumers.
pub(crate) fn spawn(events: &EventWiring) -> Vec<JoinHandle<()>> {
    start_all("onboarding", events.spawn(), WORKERS, &())
}
