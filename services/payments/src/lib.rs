//! The payments service. Today it keeps supporters (donor records) and its replica of
//! identity's organisations and accounts; payments, payment sources, refunds and search
//! follow (docs/payments.md).

pub mod config;
pub mod connectors;
mod failure;
pub mod payments;
pub mod profiles;
pub mod replica;
mod schema;
pub mod search;
pub mod sources;
pub mod supporters;
pub mod workers;

use std::sync::Arc;
use std::time::Duration;

use actix_web::web;
use coffer_events::catalogue::topic;
use coffer_events::{Bus, Consumer, ConsumerSettings, Outbox, Relay, RelaySettings};
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

#[derive(Clone)]
pub struct PaymentsSettings {
    pub event_prefix: String,
    pub relay: RelaySettings,
    /// Where this Coffer is reached from outside (redirects to its pages start here).
    pub public_base_url: String,
    /// Key of the card fingerprints (HMAC-SHA256); keep it secret and stable.
    pub fingerprint_key: Vec<u8>,
    /// How long a call to the provider may take before its outcome counts as unknown.
    pub connector_timeout: Duration,
    /// How long a call stays unanswered before the provider is asked what it did.
    pub settle_after: Duration,
    /// Faults the test provider shows (tests only; none in production).
    pub test_psp_faults: connectors::faults::Faults,
}

impl Default for PaymentsSettings {
    fn default() -> Self {
        Self {
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            public_base_url: "http://127.0.0.1:8080".into(),
            fingerprint_key: b"coffer-development-fingerprint-key".to_vec(),
            connector_timeout: Duration::from_secs(10),
            settle_after: Duration::from_secs(60),
            test_psp_faults: connectors::faults::Faults::default(),
        }
    }
}

pub(crate) struct PaymentsState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub outbox: Outbox,
    pub bus: Arc<dyn Bus>,
    pub relay: Arc<Relay>,
    pub replica: Arc<Consumer>,
    pub connector: Arc<dyn connectors::Connector>,
    pub connector_timeout: Duration,
    pub settle_after: Duration,
    /// Wakes the worker that sends reserved charges (workers/charges.rs).
    pub wake_sender: Arc<tokio::sync::Notify>,
    pub fingerprint_key: Vec<u8>,
    /// An account's organisation and payment method profiles, read on every payment.
    /// Neither changes once the replica has the account, so a short-lived copy saves a
    /// database round trip per payment (docs/payments.md).
    pub accounts: TtlCache<String, (String, Vec<profiles::store::Profile>)>,
}

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
        supporters::routes::configure(cfg);
        profiles::routes::configure(cfg);
        payments::routes::configure(cfg);
        payments::changes::configure(cfg);
        payments::refunds::configure(cfg);
        payments::test_psp_pages::configure(cfg);
        sources::routes::configure(cfg);
        search::routes::configure(cfg);
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
            tokio::spawn(search::counts::fold_forever(
                self.state.store.clone(),
                Duration::from_secs(1),
            )),
            tokio::spawn(workers::charges::send_forever(self.state.clone())),
            tokio::spawn(workers::charges::settle_forever(self.state.clone())),
        ]
    }
}
