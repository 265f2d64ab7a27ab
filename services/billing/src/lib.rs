//! The billing service: subscription plans, subscriptions, invoices, charge attempts and
//! dunning, on a schedule computed in each subscription's own time zone (docs/billing.md).

mod announce;
pub mod config;
pub mod invoices;
pub mod plans;
pub mod replica;
pub mod schedule;
pub mod scheduler;
mod schema;
pub mod subscriptions;
pub mod test_clocks;
pub mod upcoming;

use std::sync::Arc;
use std::time::Duration;

use actix_web::web;
use coffer_events::catalogue::topic;
use coffer_events::{Bus, Consumer, ConsumerSettings, Outbox, Relay, RelaySettings};
use coffer_http::{Module, ReadyFuture};
use coffer_model::clock::Clock;
use coffer_store::{Migrations, Store};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/billing/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/billing/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "billing",
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};

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

pub struct Billing {
    state: web::Data<BillingState>,
}

impl Billing {
    /// The store must be migrated with [`MIGRATIONS`].
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
            Arc::new(replica::Replica {
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
            state: web::Data::new(BillingState {
                scheduler_every: settings.scheduler_every,
                scheduler_workers: settings.scheduler_workers,
                store,
                clock,
                outbox,
                bus,
                relay,
                replica,
            }),
        }
    }
}

impl Module for Billing {
    fn name(&self) -> &'static str {
        "billing"
    }

    fn configure(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.state.clone());
        plans::routes::configure(cfg);
        subscriptions::routes::configure(cfg);
        invoices::routes::configure(cfg);
        test_clocks::routes::configure(cfg);
    }

    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(coffer_events::readiness::store_and_bus(
            "billing",
            &self.state.store,
            self.state.bus.as_ref(),
        ))
    }

    fn spawn_workers(&self) -> Vec<tokio::task::JoinHandle<()>> {
        vec![
            tokio::spawn(Arc::clone(&self.state.relay).run()),
            tokio::spawn(Arc::clone(&self.state.replica).run_forever()),
            tokio::spawn(resume_advancing(
                self.state.store.clone(),
                self.state.outbox.clone(),
                Arc::clone(&self.state.clock),
            )),
            tokio::spawn(scheduler::run_forever(
                self.state.store.clone(),
                self.state.outbox.clone(),
                Arc::clone(&self.state.clock),
                self.state.scheduler_every,
                self.state.scheduler_workers,
            )),
        ]
    }
}

/// Finishes the advances of test clocks a stopped process left half-way.
async fn resume_advancing(store: Store, outbox: Outbox, clock: Arc<dyn Clock>) {
    let clocks = match store.query(test_clocks::store::advancing).await {
        Ok(clocks) => clocks,
        Err(e) => {
            tracing::warn!(error = %e, "cannot list advancing test clocks");
            return;
        }
    };
    for test_clock in clocks {
        let run = test_clocks::advance::run(
            store.clone(),
            outbox.clone(),
            Arc::clone(&clock),
            test_clock.uuid,
        );
        if let Err(e) = run.await {
            tracing::warn!(error = %e, "resuming a test clock's advance failed");
        }
    }
}
