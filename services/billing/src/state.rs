//! What every route, command and worker of billing shares, built once per process.

use std::sync::Arc;
use std::time::Duration;

use coffer_events::{Outbox, RelaySettings};
use coffer_model::clock::Clock;
use coffer_store::Store;

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
        }
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
