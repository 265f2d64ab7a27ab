//! Billing's copy of identity's organisations and accounts (coffer-directory).

use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

pub use coffer_directory::account_organisation;

pub struct Replica;

impl Handler for Replica {
    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        coffer_directory::apply(db, event).map(drop)
    }
}
