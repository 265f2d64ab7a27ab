//! Reconciliation's wire-transfer event, as payments reads it.

use actix_web::web;
use coffer_events::catalogue::WIRE_TRANSFER_RECEIVED;
use coffer_events::{Event, Handler, HandlerError};
use coffer_http::Failure;
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
        commands::received(db, &self.state, &transfer, self.state.clock.unix()).map_err(|e| match e
        {
            Failure::Db(e) => HandlerError::Query(e),
            Failure::Api(e) => HandlerError::Permanent(e.to_string()),
        })
    }
}
