//! The reconciliation service: bank files (camt.053 statements, camt.054 notifications)
//! from sources, processed by blueprints into reports; payouts matched and direct debits
//! announced to payments (docs/reconciliation.md).
//!
//! Every feature has the same rooms: `routes` (HTTP only), `commands` (the use cases),
//! `domain` (pure rules), `store` (queries) and `events`; the one route table is
//! `routes.rs`, the background loops are listed in `workers/`. `processing/` is the pure
//! reading of a parsed file, which `files/commands.rs` applies; files arrive through
//! `uploads/` (an object store) and `sftp/` (servers polled for sftp sources).

pub mod blueprints;
pub mod config;
mod error;
mod fields;
pub mod files;
mod lists;
mod migrations;
pub mod object_store;
pub mod payouts;
pub mod processing;
pub mod reports;
mod routes;
mod schema;
pub mod sftp;
pub mod sources;
mod state;
mod tenancy;
pub mod uploads;
mod workers;

use std::sync::Arc;

use actix_web::web;
use coffer_events::{Bus, EventWiring};
use coffer_model::clock::Clock;
use coffer_store::Store;

pub use error::ReconciliationError;
pub use migrations::MIGRATIONS;
/// This service's part of the API description.
pub use routes::part as api_part;
pub use state::{
    DEFAULT_MEMORY_BUDGET, DEFAULT_READ_FOR, DEFAULT_READERS, ReconciliationSettings,
    ReconciliationState,
};

pub struct Reconciliation {
    state: web::Data<ReconciliationState>,
    /// Whose file is read when, within one memory budget. Kept beside the state rather
    /// than in it: `coffer reconcile` builds a state of its own to read one file.
    turns: web::Data<files::turns::Turns>,
    /// The outbox's relay, and the consumers of identity's events (the directory copy),
    /// of partner integrations, and of payments' payouts.
    events: EventWiring,
}

impl Reconciliation {
    /// [`Reconciliation::new`], once the SFTP secrets sealed under a master key that is no
    /// longer current are sealed again under the current one: how a process starts.
    pub async fn start(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        settings: ReconciliationSettings,
    ) -> Result<Self, coffer_store::resealing::PassError> {
        sources::commands::seal_at_start(&store, settings.secrets.as_ref()).await?;
        Ok(Self::new(store, clock, bus, settings))
    }

    /// The store must be migrated with [`MIGRATIONS`]. Nothing stored is sealed again:
    /// for a store whose values the current master key sealed (tests).
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        settings: ReconciliationSettings,
    ) -> Self {
        let mut events = EventWiring::new(
            "reconciliation",
            &store,
            &bus,
            &clock,
            &settings.event_prefix,
            settings.relay.clone(),
        );
        events.consume(
            "replica",
            &["identity"],
            Arc::new(coffer_directory::Replica),
        );
        coffer_partners::wire(&mut events);
        events.consume(
            "payouts",
            &["payment_gateway"],
            Arc::new(payouts::events::PayoutCopies),
        );
        let limits = coffer_camt::Limits {
            max_bytes: settings.max_file_bytes,
            ..coffer_camt::Limits::default()
        };
        let turns = files::turns::Turns::new(
            settings.readers,
            settings.memory_budget_bytes,
            settings.read_for,
        );
        let state = ReconciliationState {
            store,
            clock,
            outbox: events.outbox().clone(),
            secrets: settings.secrets,
            objects: settings.objects,
            read_every: settings.read_every,
            sftp_addresses: settings.sftp_addresses,
            limits,
        };
        Self {
            state: web::Data::new(state),
            turns: web::Data::new(turns),
            events,
        }
    }
}

coffer_service::module! {
    Reconciliation: "reconciliation",
    app_data: [state, turns],
    partners: coffer_partners::app_data,
    // Uploads to a local object store come back through routes of this service.
    configure: |reconciliation, cfg| {
        if matches!(
            reconciliation.state.objects,
            Some(object_store::ObjectStore::Local { .. })
        ) {
            uploads::standalone::routes(cfg);
        }
    },
    workers: [state, turns, events],
}
