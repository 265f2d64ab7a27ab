//! What a service needs to carry events, built in one place: the outbox its commands write
//! to, the relay that publishes it, the consumers that apply other services' events, and
//! the readiness check over its database and the bus. A service keeps one [`EventWiring`]
//! beside its state, starts it with its workers, and asks it whether it is ready.

use std::sync::Arc;
use std::time::Duration;

use coffer_model::clock::Clock;
use coffer_store::Store;
use tokio::task::JoinHandle;

use crate::catalogue::topic;
use crate::{Bus, Consumer, ConsumerSettings, Handler, Outbox, Relay, RelaySettings};

/// Attempts a consumer makes before an event goes to the dead letters, and the wait before
/// the second one (doubling after); the same for every consumer of every service.
const MAX_ATTEMPTS: u32 = 5;
const RETRY_BACKOFF: Duration = Duration::from_millis(200);
/// Transactions a consumer applies a batch in side by side on PostgreSQL (consumer.rs).
/// SQLite has one writer at a time, so there a batch is one transaction.
const LANES: usize = 4;

pub struct EventWiring {
    service: &'static str,
    prefix: String,
    store: Store,
    bus: Arc<dyn Bus>,
    clock: Arc<dyn Clock>,
    outbox: Outbox,
    relay: Arc<Relay>,
    consumers: Vec<Arc<Consumer>>,
}

impl EventWiring {
    /// The outbox and relay of `service`, publishing under `prefix`; no consumers yet.
    pub fn new(
        service: &'static str,
        store: &Store,
        bus: &Arc<dyn Bus>,
        clock: &Arc<dyn Clock>,
        prefix: &str,
        relay: RelaySettings,
    ) -> Self {
        let outbox = Outbox::new(prefix.to_owned(), Arc::clone(clock));
        let relay = Arc::new(Relay::new(
            store.clone(),
            Arc::clone(bus),
            outbox.signal(),
            relay,
        ));
        Self {
            service,
            prefix: prefix.to_owned(),
            store: store.clone(),
            bus: Arc::clone(bus),
            clock: Arc::clone(clock),
            outbox,
            relay,
            consumers: Vec::new(),
        }
    }

    /// What commands write their events to, in the transaction of their change.
    pub fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    /// Adds the consumer group `{prefix}.{service}.{name}`, reading the topics of
    /// `domains` (catalogue domains such as "identity") into `handler`. The name is stable
    /// across releases: it keys the group's position and its inbox rows.
    pub fn consume(&mut self, name: &str, domains: &[&str], handler: Arc<dyn Handler>) {
        self.consumers.push(Arc::new(Consumer::new(
            self.store.clone(),
            Arc::clone(&self.bus),
            Arc::clone(&self.clock),
            handler,
            ConsumerSettings {
                name: format!("{}.{}.{name}", self.prefix, self.service),
                topics: domains.iter().map(|d| topic(&self.prefix, d)).collect(),
                max_attempts: MAX_ATTEMPTS,
                retry_backoff: RETRY_BACKOFF,
                lanes: match self.store.backend() {
                    coffer_store::Backend::Sqlite => 1,
                    coffer_store::Backend::Postgres => LANES,
                },
            },
        )));
    }

    /// Starts the relay and every consumer, each resubscribing after a bus failure, and
    /// the outbox's count for `/metrics` (metrics.rs).
    pub fn spawn(&self) -> Vec<JoinHandle<()>> {
        tracing::debug!(
            service = self.service,
            consumers = self.consumers.len(),
            "event relay and consumers start"
        );
        self.relay
            .spawn()
            .into_iter()
            .chain(
                self.consumers
                    .iter()
                    .map(|c| tokio::spawn(Arc::clone(c).run_forever())),
            )
            .chain([tokio::spawn(crate::metrics::sample_forever(
                self.service,
                self.store.clone(),
                Arc::clone(&self.clock),
            ))])
            .collect()
    }

    /// Ready when the database and the bus both answer (readiness.rs).
    pub async fn ready(&self) -> Result<(), String> {
        crate::readiness::store_and_bus(self.service, &self.store, self.bus.as_ref()).await
    }
}
