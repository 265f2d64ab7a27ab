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
use coffer_events::{Bus, Event, EventWiring, Handler, HandlerError};
use coffer_model::clock::Clock;
use coffer_store::{Db, Store};

pub use migrations::MIGRATIONS;
/// This service's part of the API description.
pub use routes::part as api_part;
pub use state::BillingSettings;
use state::BillingState;

pub struct Billing {
    state: web::Data<BillingState>,
    /// The outbox's relay, and the consumer of identity's, payments' and supporters'
    /// events (the copies in replica/, payments' answers in invoices/events.rs).
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
        // One consumer under its first name, "replica": its bus position and its inbox
        // rows are kept under that name.
        events.consume(
            "replica",
            &["identity", "payment_gateway", "supporters"],
            Arc::new(InTurn(
                replica::Copies,
                invoices::events::PaymentResults {
                    outbox: events.outbox().clone(),
                    clock: Arc::clone(&clock),
                },
            )),
        );
        coffer_partners::wire(&mut events);
        let state = BillingState::new(store, clock, events.outbox().clone(), &settings);
        Self {
            state: web::Data::new(state),
            events,
        }
    }
}

/// Two handlers that share one consumer, each given the events it wants. Neither reads
/// or writes what the other keeps (the copies announce nothing; payments' answers read no
/// copy), so a batch is split in two, each half in its order: payments' answers then see
/// the whole batch's answers together, as their handler needs to apply a batch's
/// successes after its other answers (invoices/commands/paid_together.rs).
struct InTurn<A, B>(A, B);

impl<A: Handler, B: Handler> Handler for InTurn<A, B> {
    fn wants(&self, event: &Event) -> bool {
        self.0.wants(event) || self.1.wants(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        if self.0.wants(event) {
            self.0.handle(db, event)
        } else {
            self.1.handle(db, event)
        }
    }

    fn handle_many(&self, db: &mut Db<'_>, events: &[Event]) -> Result<(), HandlerError> {
        let (first, second): (Vec<Event>, Vec<Event>) =
            events.iter().cloned().partition(|e| self.0.wants(e));
        self.0.handle_many(db, &first)?;
        self.1.handle_many(db, &second)
    }
}

coffer_service::module! {
    Billing: "billing",
    app_data: [state],
    partners: coffer_partners::app_data,
    workers: [state, events],
}
