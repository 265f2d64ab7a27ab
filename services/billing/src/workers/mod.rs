//! Billing's background loops, each named and described here, and started from this list
//! (by `Billing::spawn_workers`). A worker only calls commands; it decides nothing itself.
//!
//! - the event relay and the `replica` consumer (`EventWiring`, built in lib.rs): publishes
//!   the outbox, and reads identity's, payments' and supporters' events (billing's copies,
//!   subscriptions started by a payment, and the results of charge attempts).
//! - `resume_test_clocks`: at start, finishes advances a stopped process left half-way.
//! - `scheduler`: the scheduler's pass over the real clock, every `scheduler_every`.
//! - `advance_test_clocks`: runs each advance the advance command has begun (handed over
//!   through `BillingState::advances`), one task per advance, stepping the clock to its
//!   target.

mod scheduler;
mod test_clocks;

use coffer_events::EventWiring;
use coffer_http::workers::{Worker, start_all};
use tokio::task::JoinHandle;

use crate::state::BillingState;

pub(crate) const WORKERS: &[Worker<BillingState>] = &[
    Worker {
        name: "resume_test_clocks",
        description: "at start, finishes the test clock advances a stopped process left half-way",
        start: |s| Some(tokio::spawn(test_clocks::resume(s.handles()))),
    },
    Worker {
        name: "advance_test_clocks",
        description: "runs each test clock advance a request has begun, stepping the clock to \
                      its target",
        start: |s| {
            Some(tokio::spawn(test_clocks::run_begun(
                s.handles(),
                s.advances.runner(),
            )))
        },
    },
    Worker {
        name: "scheduler",
        description: "every scheduler_every, announces upcoming charges, invoices and charges \
                      what fell due, retries and ends suspensions",
        start: |s| {
            Some(tokio::spawn(scheduler::run_forever(
                s.handles(),
                s.scheduler_every,
                s.scheduler_workers,
            )))
        },
    },
];

/// Starts the event relay and consumers, then every worker of [`WORKERS`].
pub(crate) fn spawn(state: &BillingState, events: &EventWiring) -> Vec<JoinHandle<()>> {
    start_all("billing", events.spawn(), WORKERS, state)
}
