//! The billing service: subscription plans, subscriptions, invoices, charge attempts and
//! dunning, on a schedule computed in each subscription's own time zone (docs/billing.md).
//!
//! Every feature has the same rooms: `routes` (HTTP only), `commands` (the use cases),
//! `domain` (pure rules), `store` (queries) and `events`; the one route table is
//! `routes.rs`, and the background loops are the workers listed in `workers/mod.rs`.

mod announce;
pub mod config;
mod error;
mod idempotent;
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
use coffer_events::Bus;
use coffer_http::{Module, ReadyFuture};
use coffer_model::clock::Clock;
use coffer_store::Store;

pub use migrations::MIGRATIONS;
pub use state::BillingSettings;
use state::BillingState;

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
        Self {
            state: web::Data::new(BillingState::new(store, clock, bus, settings)),
        }
    }
}

impl Module for Billing {
    fn name(&self) -> &'static str {
        "billing"
    }

    fn configure(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.state.clone());
        routes::configure(cfg);
    }

    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(coffer_events::readiness::store_and_bus(
            "billing",
            &self.state.store,
            self.state.bus.as_ref(),
        ))
    }

    fn spawn_workers(&self) -> Vec<tokio::task::JoinHandle<()>> {
        workers::spawn(&self.state)
    }
}
