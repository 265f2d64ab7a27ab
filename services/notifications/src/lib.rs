//! The notifications service: webhook endpoints, event subscriptions, and signed deliveries
//! of Coffer's domain events with retries and a delivery log (docs/webhooks.md).
//!
//! Every feature has the same rooms: `routes` (HTTP only), `commands` (the use cases),
//! `domain` (pure rules), `store` (queries) and `events`; the one route table is
//! `routes.rs`, the background loops are listed in `workers/`. The features: webhook
//! endpoints (`endpoints`), event subscriptions (`subscriptions`, with their event names
//! and filters), and deliveries with their log (`deliveries`).

pub mod config;
pub mod deliveries;
pub mod endpoints;
mod error;
mod migrations;
mod routes;
mod schema;
mod state;
pub mod subscriptions;
mod workers;

use std::sync::Arc;

use actix_web::web;
use coffer_events::catalogue::domains;
use coffer_events::{Bus, EventWiring};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;
use deliveries::metrics::DeliveryMetrics;
use tokio::sync::Notify;

pub use migrations::MIGRATIONS;
/// This service's part of the API description.
pub use routes::part as api_part;
pub use state::NotificationsSettings;
use state::NotificationsState;

pub struct Notifications {
    state: web::Data<NotificationsState>,
    /// The outbox's relay, the consumer of identity's events (replica.rs), and that of
    /// every event (deliveries/events.rs).
    events: EventWiring,
}

/// Why notifications cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("the delivery client cannot be built: {0}")]
    Client(#[from] reqwest::Error),
    #[error(transparent)]
    Reseal(#[from] coffer_store::resealing::PassError),
}

impl Notifications {
    /// The store must be migrated with [`MIGRATIONS`]. What it keeps sealed under a master
    /// key that is no longer current (endpoints' signing keys and passwords, the answers
    /// stored under Idempotency-Keys) is sealed again under the current one first, before
    /// anything is served or delivered.
    pub async fn start(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        secrets: Secrets,
        settings: NotificationsSettings,
    ) -> Result<Self, StartError> {
        endpoints::commands::seal_at_start(&store, &secrets).await?;
        let mut events = EventWiring::new(
            "notifications",
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
        events.consume(
            "partners",
            &[coffer_partners::DOMAIN],
            Arc::new(endpoints::events::PartnerAccess {
                secrets: secrets.clone(),
                outbox: events.outbox().clone(),
                clock: Arc::clone(&clock),
            }),
        );
        let wake = Arc::new(Notify::new());
        events.consume(
            "deliveries",
            &domains(),
            Arc::new(deliveries::events::Fanout {
                clock: Arc::clone(&clock),
                wake: Arc::clone(&wake),
            }),
        );
        let client = deliveries::connect::client(
            settings.addresses.clone(),
            settings.extra_roots.as_deref(),
        )?;
        let state = NotificationsState {
            store,
            clock,
            secrets,
            addresses: settings.addresses,
            outbox: events.outbox().clone(),
            client,
            wake,
            metrics: DeliveryMetrics::new(),
            retention_days: settings.retention_days,
            max_in_flight: settings.max_in_flight.max(1),
            max_in_flight_per_endpoint: settings.max_in_flight_per_endpoint.max(1),
            max_in_flight_per_organisation: settings.max_in_flight_per_organisation.max(1),
            max_endpoints_per_organisation: settings.max_endpoints_per_organisation,
        };
        Ok(Self {
            state: web::Data::new(state),
            events,
        })
    }
}

impl Notifications {
    /// Notifications' outbox: benchmarks write events straight into it, as if another
    /// service had (`coffer bench-deliveries`).
    pub fn outbox(&self) -> &coffer_events::Outbox {
        self.events.outbox()
    }
}

coffer_service::module! {
    Notifications: "notifications",
    app_data: [state],
    partners: coffer_partners::app_data,
    metrics: |notifications, registry| {
        notifications.state.metrics.register(registry);
    },
    workers: [state, events],
}
