//! What onboarding keeps of other services, from their events: identity's organisations
//! and accounts (coffer-directory), to find an account's organisation.

use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

pub use coffer_directory::account_organisation;

/// The handler of onboarding's `replica` consumer.
pub struct Replica;

impl Handler for Replica {
    fn wants(&self, event: &Event) -> bool {
        coffer_directory::concerns(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        coffer_directory::apply(db, event).map(drop)
    }
}
