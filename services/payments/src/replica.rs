//! Payments' copy of identity's organisations and accounts (coffer-directory); a new
//! account gets its test payment method profiles here.

use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

pub struct Replica;

impl Handler for Replica {
    fn wants(&self, event: &Event) -> bool {
        coffer_directory::concerns(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        if let Some(account) = coffer_directory::apply(db, event)? {
            crate::profiles::store::create_test_profiles(
                db,
                &account.uuid,
                &account.organisation_uuid,
                account.at_ms / 1000,
            )?;
        }
        Ok(())
    }
}
