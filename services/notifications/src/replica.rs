//! What notifications keeps of other services, from their events: identity's
//! organisations and accounts (coffer-directory), to check an endpoint's account.

use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

/// The handler of notifications' `replica` consumer.
pub struct Replica;

impl Handler for Replica {
    fn wants(&self, event: &Event) -> bool {
        coffer_directory::concerns(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        match event.object.as_str() {
            "organisation" | "account" => coffer_directory::apply(db, event).map(drop),
            _ => Ok(()),
        }
    }
}
