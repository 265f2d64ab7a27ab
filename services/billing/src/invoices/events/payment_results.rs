//! The consumer of payments' answers, in its own file below invoices' commands: the
//! commands it calls emit through events/mod.rs.

use std::sync::Arc;

use coffer_events::{Event, Handler, HandlerError, Outbox};
use coffer_model::clock::Clock;
use coffer_store::Db;

use super::{charge_result, payment_start};
use crate::invoices::commands;

/// The consumer of payments' answers: a payment may start a subscription, or answer a
/// charge attempt. It shares billing's consumer with the copies of other services' objects
/// (wired in lib.rs).
pub struct PaymentResults {
    pub outbox: Outbox,
    pub clock: Arc<dyn Clock>,
}

impl Handler for PaymentResults {
    /// Most of payments' events (a payment created, a refund) say nothing billing keeps;
    /// a charge attempt's payment matters only once it has a result.
    fn wants(&self, event: &Event) -> bool {
        payment_start(event).is_some() || charge_result(event).is_some()
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        if let Some(start) = payment_start(event) {
            commands::from_payment::start_from_payment(db, &self.outbox, self.clock.unix(), start)?;
        }
        if let Some(result) = charge_result(event) {
            commands::results::apply_payment_result(db, &self.outbox, self.clock.unix(), &result)?;
        }
        Ok(())
    }

    /// Charge attempts' successes are applied together after the batch's other events
    /// (invoices/commands/paid_together.rs); nothing else in a batch bears on them.
    fn handle_many(&self, db: &mut Db<'_>, events: &[Event]) -> Result<(), HandlerError> {
        let mut paid = Vec::new();
        for event in events {
            if payment_start(event).is_none()
                && let Some(result) = charge_result(event).filter(|r| r.succeeded)
            {
                paid.push(result);
                continue;
            }
            self.handle(db, event)?;
        }
        commands::paid_together::apply_successes(db, &self.outbox, self.clock.unix(), &paid)
            .map_err(HandlerError::from)
    }
}
