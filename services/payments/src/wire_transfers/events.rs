//! Reconciliation's wire-transfer event, as payments reads it.

use actix_web::web;
use coffer_events::catalogue::WIRE_TRANSFER_RECEIVED;
use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

use super::commands;
use super::domain::Transfer;
use crate::state::PaymentsState;

/// Records each wire transfer the bank credited as a succeeded payment, once.
pub struct TransferPayments {
    pub(crate) state: web::Data<PaymentsState>,
}

impl Handler for TransferPayments {
    fn wants(&self, event: &Event) -> bool {
        WIRE_TRANSFER_RECEIVED.is(&event.name)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let transfer = Transfer::read(&event.data)
            .map_err(|why| HandlerError::Permanent(format!("{}: {why}", event.name)))?;
        // A query's error is the consumer's to retry; anything else is permanent
        // (PaymentsError::retryable).
        Ok(commands::received(
            db,
            &self.state,
            &transfer,
            self.state.clock.unix(),
        )?)
    }
}
