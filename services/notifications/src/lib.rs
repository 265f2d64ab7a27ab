//! The notifications service: webhook endpoints, event subscriptions, and signed deliveries
//! of Coffer's domain events with retries and a delivery log (docs/webhooks.md).
//!
//! Every feature has the same rooms: `routes` (HTTP only), `commands` (the use cases),
//! `domain` (pure rules), `store` (queries) and `events`; the one route table is
//! `routes.rs`. Built so far: webhook endpoints (`endpoints`), event subscriptions
//! (`subscriptions`, with their event names and filters), and how a delivery is signed
//! (`deliveries`); the delivery workers come next.

pub mod config;
pub mod deliveries;
pub mod endpoints;
mod migrations;
mod replica;
mod routes;
mod schema;
mod state;
pub mod subscriptions;

use std::sync::Arc;

use actix_web::web;
use coffer_events::{Bus, EventWiring};
use coffer_http::{Module, ReadyFuture};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;

pub use migrations::MIGRATIONS;
/// This service's part of the API description.
pub use routes::part as api_part;
pub use state::NotificationsSettings;
use state::NotificationsState;

pub struct Notifications {
    state: web::Data<NotificationsState>,
    /// The outbox's relay, and the consumer of identity's events (replica.rs).
    events: EventWiring,
}

impl Notifications {
    /// The store must be migrated with [`MIGRATIONS`].
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        secrets: Secrets,
        settings: NotificationsSettings,
    ) -> Self {
        let mut events = EventWiring::new(
            "notifications",
            &store,
            &bus,
            &clock,
            &settings.event_prefix,
            settings.relay.clone(),
        );
        events.consume("replica", &["identity"], Arc::new(replica::Replica));
        let state = NotificationsState {
            store,
            clock,
            secrets,
            addresses: settings.addresses,
        };
        Self {
            state: web::Data::new(state),
            events,
        }
    }
}

impl Module for Notifications {
    fn name(&self) -> &'static str {
        "notifications"
    }

    fn configure(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.state.clone());
        routes::table().register(cfg);
    }

    fn api(&self) -> coffer_http::openapi::Part {
        routes::part()
    }

    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(self.events.ready())
    }

    fn spawn_workers(&self) -> Vec<tokio::task::JoinHandle<()>> {
        self.events.spawn()
    }
}
