//! The payments service: payments and their charging, refunds, payment sources,
//! supporters (donor records), payment method profiles, search, payment agreements (from
//! its copy of billing's subscriptions), and its replica of identity's organisations and
//! accounts (docs/payments.md).
//!
//! Each feature folder has the same rooms (docs/architecture.md); `routes.rs` is the one
//! route table, `workers/` lists the background loops.

pub mod agreements;
mod command_kit;
pub mod config;
pub mod connector_accounts;
mod connector_registry;
pub mod connectors;
pub mod direct_debits;
pub mod disputes;
mod error;
mod migrations;
pub mod payment_page;
pub mod payments;
pub mod payouts;
pub mod profiles;
pub mod provider_notifications;
pub mod refunds;
mod routes;
mod schema;
pub mod search;
mod settings;
pub mod shared;
pub mod sources;
mod state;
pub mod supporters;
pub mod wire_transfers;
pub mod workers;

pub use connector_registry::{ProviderSettings, stripe_api_refused};
pub use migrations::MIGRATIONS;
/// This service's part of the API description.
pub use routes::part as api_part;
pub use settings::{PaymentsSettings, waits_refused};

use std::sync::Arc;
use std::time::Duration;

use actix_web::web;
use coffer_events::{Bus, EventWiring};
use coffer_model::clock::Clock;
use coffer_store::{Store, TtlCache};

use crate::payments::commands::{ChargeBatches, PaymentReads};
use crate::state::PaymentsState;

pub struct Payments {
    state: web::Data<PaymentsState>,
    /// Payments' charges that arrive together, recorded together (payments/commands/).
    charges: web::Data<ChargeBatches>,
    /// Reads of a payment that arrive together, read together (payments/commands/).
    reads: web::Data<PaymentReads>,
    /// What the donor's payment pages keep of the provider's answers (payment_page/).
    pages: web::Data<payment_page::commands::PageReads>,
    /// What the workers start from (workers/mod.rs).
    workers: workers::Inputs,
    /// The outbox's relay, and the consumers of identity's events (profiles/events.rs),
    /// of billing's charge attempts (payments/events.rs) and of its subscriptions
    /// (agreements/events.rs).
    events: EventWiring,
}

impl Payments {
    /// [`Payments::new`], once the connector accounts' keys sealed under a master key that
    /// is no longer current are sealed again under the current one: how a process starts.
    pub async fn start(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        settings: PaymentsSettings,
    ) -> Result<Self, coffer_store::resealing::PassError> {
        if let Some(secrets) = &settings.secrets {
            connector_accounts::commands::seal_at_start(&store, secrets).await?;
        }
        Ok(Self::new(store, clock, bus, settings))
    }

    /// The store must be migrated with [`MIGRATIONS`]. Nothing stored is sealed again:
    /// for a store whose values the current master key sealed (tests).
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        settings: PaymentsSettings,
    ) -> Self {
        let mut events = EventWiring::new(
            "payments",
            &store,
            &bus,
            &clock,
            &settings.event_prefix,
            settings.relay,
        );
        // A consumer's name keeps its bus position and inbox rows, so each keeps the name it
        // was first given, whatever its handler is now called (docs/decisions/consumer-names.md).
        events.consume(
            "replica",
            &["identity"],
            Arc::new(profiles::events::IdentityCopies),
        );
        coffer_partners::wire(&mut events);
        let test_provider = Arc::new(connectors::test_psp::TestPsp::new(
            settings.public_base_url.clone(),
            store.clone(),
            Arc::clone(&clock),
            settings.test_psp_faults.clone(),
        ));
        let connectors = connector_registry::ConnectorRegistry::new(
            test_provider,
            store.clone(),
            settings.secrets.clone(),
            settings.providers.clone(),
            settings.public_base_url.clone(),
            connectors::metrics::ConnectorMetrics::new(),
        );
        let state = web::Data::new(PaymentsState {
            store,
            clock,
            outbox: events.outbox().clone(),
            connectors,
            connector_timeout: settings.connector_timeout,
            settle_after: settings.settle_after,
            donor_wait: settings.donor_wait,
            wake_sender: Arc::new(tokio::sync::Notify::new()),
            fingerprint_key: settings.fingerprint_key,
            accounts: TtlCache::new(10_000, Duration::from_secs(2)),
        });
        let charges = web::Data::new(ChargeBatches::new());
        let reads = web::Data::new(payments::commands::payment_reads(&state.store));
        let workers = workers::Inputs {
            state: state.clone(),
            charges: charges.clone(),
            payout_fees: settings.payout_fees,
            payout_every: settings.payout_every,
        };
        events.consume(
            "payout-matches",
            &["reconciliation"],
            Arc::new(payouts::events::PayoutMatches {
                clock: Arc::clone(&state.clock),
            }),
        );
        events.consume(
            "direct-debits",
            &["reconciliation"],
            Arc::new(direct_debits::events::CollectionOutcomes {
                state: state.clone(),
            }),
        );
        events.consume(
            "wire-transfers",
            &["reconciliation"],
            Arc::new(wire_transfers::events::TransferPayments {
                state: state.clone(),
            }),
        );
        events.consume(
            "billing-charges",
            &["subscriptions"],
            Arc::new(payments::events::BillingCharges {
                state: state.clone(),
            }),
        );
        events.consume(
            "agreements",
            &["subscriptions"],
            Arc::new(agreements::events::SubscriptionCopies),
        );
        Self {
            state,
            charges,
            reads,
            pages: web::Data::new(payment_page::commands::PageReads::new()),
            workers,
            events,
        }
    }
}

coffer_service::module! {
    Payments: "payments",
    app_data: [state, charges, reads, pages],
    partners: coffer_partners::app_data,
    metrics: |payments, registry| {
        payments.state.connectors.metrics().register(registry);
    },
    workers: [workers, events],
}
