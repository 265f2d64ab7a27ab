//! What billing keeps of other services, from their events: identity's organisations and
//! accounts (coffer-directory), and payments' payment sources and supporters, enough to
//! check the references of a subscription. Each event carries the whole object; the newest
//! wins, and a redelivered older one changes nothing.

mod store;

use coffer_events::catalogue::{PAYMENT_SOURCE_CREATED, SUPPORTER_CREATED};
use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

pub use coffer_directory::account_organisation;
pub use store::{KnownSource, source, supporter_organisation};

/// The consumer that keeps the copies. It shares billing's consumer with payments'
/// answers (wired in lib.rs).
pub struct Copies;

impl Handler for Copies {
    fn wants(&self, event: &Event) -> bool {
        PAYMENT_SOURCE_CREATED.any_action(&event.name)
            || SUPPORTER_CREATED.any_action(&event.name)
            || coffer_directory::concerns(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let uuid = event.object_uuid.to_string();
        if PAYMENT_SOURCE_CREATED.any_action(&event.name) {
            if store::newer_source_kept(db, &uuid, event.timestamp)? {
                return Ok(());
            }
            let source = KnownSource {
                uuid,
                organisation_uuid: event.text("organisation_uuid")?,
                account_uuid: event.text("account_uuid")?,
                test_mode: event.data["test_mode"].as_bool().unwrap_or(false),
                payment_method: event.text("payment_method")?,
                payment_provider: event.text("payment_provider")?,
                status: event.text("status")?,
            };
            Ok(store::keep_source(db, &source, event.timestamp)?)
        } else if SUPPORTER_CREATED.any_action(&event.name) {
            let organisation = event.text("organisation_uuid")?;
            Ok(store::keep_supporter(
                db,
                &uuid,
                &organisation,
                event.timestamp,
            )?)
        } else if coffer_directory::concerns(event) {
            coffer_directory::apply(db, event).map(drop)
        } else {
            Ok(())
        }
    }
}
