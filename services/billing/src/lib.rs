//! The billing service: subscription plans, subscriptions, invoices, charge attempts and
//! dunning, on a schedule computed in each subscription's own time zone (docs/billing.md).
//!
//! Every feature has the same rooms: `routes` (HTTP only), `commands` (the use cases),
//! `domain` (pure rules), `store` (queries) and `events`; the one route table is
//! `routes.rs`, and the background loops are the workers listed in `workers/mod.rs`.

mod announce;
pub mod config;
mod error;
pub mod invoices;
mod migrations;
pub mod plans;
pub mod replica;
mod routes;
pub mod schedule;
pub mod scheduler;
mod schema;
mod state;
pub mod subscriptions;
pub mod test_clocks;
mod workers;

use std::sync::Arc;

use actix_web::web;
use coffer_events::{Bus, EventWiring};
use coffer_model::clock::Clock;
use coffer_store::Store;

pub use migrations::MIGRATIONS;
/// This service's part of the API description.
pub use routes::part as api_part;
pub use state::BillingSettings;
use state::BillingState;

pub struct Billing {
    state: web::Data<BillingState>,
    /// The outbox's relay, and the consumer of identity's, payments' and supporters'
    /// events (replica/).
    events: EventWiring,
}

impl Billing {
    /// The store must be migrated with [`MIGRATIONS`].
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        settings: BillingSettings,
    ) -> Self {
        let mut events = EventWiring::new(
            "billing",
            &store,
            &bus,
            &clock,
            &settings.event_prefix,
            settings.relay.clone(),
        );
        events.consume(
            "replica",
            &["identity", "payment_gateway", "supporters"],
            Arc::new(replica::Replica {
                outbox: events.outbox().clone(),
                clock: Arc::clone(&clock),
            }),
        );
        coffer_partners::wire(&mut events);
        let state = BillingState::new(store, clock, events.outbox().clone(), &settings);
        Self {
            state: web::Data::new(state),
            events,
        }
    }
}

coffer_service::module! {
    Billing: "billing",
    app_data: [state],
    partners: coffer_partners::app_data,
    workers: [state, events],
}
