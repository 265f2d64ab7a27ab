//! The payments service. Today it keeps supporters (donor records) and its replica of
//! identity's organisations and accounts; payments, payment sources, refunds and search
//! follow (docs/payments.md).

pub mod config;
pub mod connectors;
mod failure;
pub mod payments;
pub mod profiles;
pub mod replica;
mod routes;
mod schema;
pub mod search;
pub mod sources;
mod state;
pub mod supporters;
pub mod workers;

pub use state::PaymentsSettings;
pub(crate) use state::PaymentsState;

use std::sync::Arc;
use std::time::Duration;

use actix_web::web;
use coffer_events::catalogue::topic;
use coffer_events::{Bus, Consumer, ConsumerSettings, Outbox, Relay};
use coffer_http::{Module, ReadyFuture};
use coffer_model::clock::Clock;
use coffer_store::{Migrations, Store, TtlCache};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/payments/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/payments/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "payments",
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};

pub struct Payments {
    state: web::Data<PaymentsState>,
    /// Charges billing's charge attempts (sources/billing_charges.rs).
    charges: Arc<Consumer>,
}

impl Payments {
    /// The store must be migrated with [`MIGRATIONS`].
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        settings: PaymentsSettings,
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
            Arc::new(replica::Replica),
            ConsumerSettings {
                name: format!("{}.payments.replica", settings.event_prefix),
                topics: vec![topic(&settings.event_prefix, "identity")],
                max_attempts: 5,
                retry_backoff: Duration::from_millis(200),
            },
        ));
        let connector = Arc::new(connectors::test_psp::TestPsp {
            base_url: settings.public_base_url.clone(),
            store: store.clone(),
            clock: Arc::clone(&clock),
            faults: settings.test_psp_faults.clone(),
        });
        let state = web::Data::new(PaymentsState {
            store,
            clock,
            outbox,
            bus,
            relay,
            replica,
            connector,
            connector_timeout: settings.connector_timeout,
            settle_after: settings.settle_after,
            wake_sender: Arc::new(tokio::sync::Notify::new()),
            fingerprint_key: settings.fingerprint_key,
            accounts: TtlCache::new(10_000, Duration::from_secs(2)),
        });
        let charges = Arc::new(Consumer::new(
            state.store.clone(),
            Arc::clone(&state.bus),
            Arc::clone(&state.clock),
            Arc::new(sources::billing_charges::BillingCharges {
                state: state.clone(),
            }),
            ConsumerSettings {
                name: format!("{}.payments.billing-charges", settings.event_prefix),
                topics: vec![topic(&settings.event_prefix, "subscriptions")],
                max_attempts: 5,
                retry_backoff: Duration::from_millis(200),
            },
        ));
        Self { state, charges }
    }
}

impl Module for Payments {
    fn name(&self) -> &'static str {
        "payments"
    }

    fn configure(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.state.clone());
        routes::configure(cfg);
    }

    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(coffer_events::readiness::store_and_bus(
            "payments",
            &self.state.store,
            self.state.bus.as_ref(),
        ))
    }

    fn spawn_workers(&self) -> Vec<tokio::task::JoinHandle<()>> {
        vec![
            tokio::spawn(Arc::clone(&self.state.relay).run()),
            tokio::spawn(Arc::clone(&self.state.replica).run_forever()),
            tokio::spawn(Arc::clone(&self.charges).run_forever()),
        ]
        .into_iter()
        .chain(workers::spawn(&self.state))
        .collect()
    }
}
