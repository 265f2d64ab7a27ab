//! What every route, command and worker of billing shares, built once per process.

use std::sync::Arc;
use std::time::Duration;

use coffer_events::catalogue::topic;
use coffer_events::{Bus, Consumer, ConsumerSettings, Outbox, Relay, RelaySettings};
use coffer_model::clock::Clock;
use coffer_store::Store;

use crate::replica::Replica;

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
    pub bus: Arc<dyn Bus>,
    pub relay: Arc<Relay>,
    pub replica: Arc<Consumer>,
}

impl BillingState {
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        settings: BillingSettings,
    ) -> Self {
        let outbox = Outbox::new(settings.event_prefix.clone(), Arc::clone(&clock));
        let relay = Arc::new(Relay::new(
            store.clone(),
            Arc::clone(&bus),
            Arc::clone(&clock),
            outbox.signal(),
            settings.relay,
        ));
        let replica = Arc::new(Consumer::new(
            store.clone(),
            Arc::clone(&bus),
            Arc::clone(&clock),
            Arc::new(Replica {
                outbox: outbox.clone(),
                clock: Arc::clone(&clock),
            }),
            ConsumerSettings {
                name: format!("{}.billing.replica", settings.event_prefix),
                topics: ["identity", "payment_gateway", "supporters"]
                    .map(|domain| topic(&settings.event_prefix, domain))
                    .to_vec(),
                max_attempts: 5,
                retry_backoff: Duration::from_millis(200),
            },
        ));
        Self {
            scheduler_every: settings.scheduler_every,
            scheduler_workers: settings.scheduler_workers,
            store,
            clock,
            outbox,
            bus,
            relay,
            replica,
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
