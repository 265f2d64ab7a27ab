//! Reconciliation's direct-debit events, as payments reads them.

use actix_web::web;
use coffer_events::catalogue::{DIRECT_DEBIT_RECEIVED, DIRECT_DEBIT_RETURNED};
use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

use super::commands;
use super::domain::Reported;
use crate::state::PaymentsState;

/// Settles the payment of each collection the bank reports: received, it succeeds (or is
/// recorded, when payments never started it); returned, it fails with the return's reason.
pub struct CollectionOutcomes {
    pub(crate) state: web::Data<PaymentsState>,
}

impl Handler for CollectionOutcomes {
    fn wants(&self, event: &Event) -> bool {
        DIRECT_DEBIT_RECEIVED.is(&event.name) || DIRECT_DEBIT_RETURNED.is(&event.name)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let reported = Reported::read(&event.data)
            .map_err(|why| HandlerError::Permanent(format!("{}: {why}", event.name)))?;
        let now = self.state.clock.unix();
        let done = if DIRECT_DEBIT_RETURNED.is(&event.name) {
            commands::returned(db, &self.state, &reported, now)
        } else {
            commands::received(db, &self.state, &reported, now)
        };
        // A query's error is the consumer's to retry; anything else is permanent
        // (PaymentsError::retryable).
        Ok(done?)
    }
}
