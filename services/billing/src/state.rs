//! What every route, command and worker of billing shares, built once per process.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use coffer_events::{Outbox, RelaySettings};
use coffer_model::clock::Clock;
use coffer_store::Store;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

#[derive(Clone)]
pub struct BillingSettings {
    pub event_prefix: String,
    pub relay: RelaySettings,
    /// How often the scheduler looks for due subscriptions and retries.
    pub scheduler_every: Duration,
    /// Scheduler passes run side by side on PostgreSQL.
    pub scheduler_workers: usize,
}

impl Default for BillingSettings {
    fn default() -> Self {
        Self {
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            scheduler_every: Duration::from_secs(60),
            scheduler_workers: 3,
        }
    }
}

pub(crate) struct BillingState {
    pub scheduler_every: Duration,
    pub scheduler_workers: usize,
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub outbox: Outbox,
    pub advances: Advances,
}

impl BillingState {
    /// `outbox` is the one of the service's event wiring (lib.rs).
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        outbox: Outbox,
        settings: &BillingSettings,
    ) -> Self {
        Self {
            scheduler_every: settings.scheduler_every,
            scheduler_workers: settings.scheduler_workers,
            store,
            clock,
            outbox,
            advances: Advances::new(),
        }
    }
}

/// The test clocks whose advance a command has begun, on their way to the worker that runs
/// them: the command answers at once and starts no task of its own.
pub(crate) struct Advances {
    begun: UnboundedSender<String>,
    /// Taken by the worker when it starts.
    runner: Mutex<Option<UnboundedReceiver<String>>>,
}

impl Advances {
    fn new() -> Self {
        let (begun, runner) = mpsc::unbounded_channel();
        Self {
            begun,
            runner: Mutex::new(Some(runner)),
        }
    }

    /// Hands the clock to the worker. With no worker left (the process stops), the clock
    /// stays advancing and is finished when billing next starts.
    pub fn begun(&self, clock: String) {
        if self.begun.send(clock).is_err() {
            tracing::debug!("no worker runs test clock advances; resumed at the next start");
        }
    }

    /// The worker's end of the queue; `None` once taken.
    pub fn runner(&self) -> Option<UnboundedReceiver<String>> {
        self.runner.lock().ok().and_then(|mut r| r.take())
    }
}

/// What a worker needs of the state, owned, for a task of its own.
#[derive(Clone)]
pub(crate) struct Handles {
    pub store: Store,
    pub outbox: Outbox,
    pub clock: Arc<dyn Clock>,
}

impl BillingState {
    pub fn handles(&self) -> Handles {
        Handles {
            store: self.store.clone(),
            outbox: self.outbox.clone(),
            clock: Arc::clone(&self.clock),
        }
    }
}
