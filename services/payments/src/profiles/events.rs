//! What profiles read of identity: its organisations and accounts, kept as payments' copy
//! (coffer-directory), and a new account, which gets its test payment method profiles
//! here (the `replica` consumer, wired in lib.rs).

use coffer_events::catalogue::{ACCOUNT_CREATED, ORGANISATION_CREATED};
use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

use super::store;

/// Whether the event is one of identity's `organisation.*` or `account.*` (created,
/// updated), each carrying the record as it now stands: the events the copy is kept from.
fn announces_identity_record(event: &Event) -> bool {
    ORGANISATION_CREATED.any_action(&event.name) || ACCOUNT_CREATED.any_action(&event.name)
}

/// Keeps payments' copy of identity's organisations and accounts, and gives each account
/// new to the copy its test profiles. Its consumer keeps the name `replica` (its bus
/// position and inbox rows are kept under it: docs/decisions/consumer-names.md).
pub struct IdentityCopies;

impl Handler for IdentityCopies {
    fn wants(&self, event: &Event) -> bool {
        announces_identity_record(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        if let Some(account) = coffer_directory::apply(db, event)? {
            store::create_test_profiles(
                db,
                &account.uuid,
                &account.organisation_uuid,
                account.at_ms / 1000,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> Event {
        let event = Event::new(
            &ACCOUNT_CREATED,
            "coffer",
            0,
            uuid::Uuid::nil(),
            None,
            None,
            serde_json::json!({}),
        );
        Event {
            name: name.to_owned(),
            ..event
        }
    }

    #[test]
    fn every_organisation_and_account_event_is_read_and_nothing_else() {
        for name in [
            "coffer.event.identity.organisation.created",
            "coffer.event.identity.organisation.updated",
            "coffer.event.identity.account.created",
            "coffer.event.identity.account.updated",
        ] {
            assert!(announces_identity_record(&named(name)), "{name}");
        }
        for other in [
            "coffer.event.subscriptions.subscription.created",
            "coffer.event.payment_gateway.payment_source.created",
        ] {
            assert!(!announces_identity_record(&named(other)), "{other}");
        }
    }
}
