//! What agreements read: billing's `subscription.*` events, each carrying the whole
//! subscription, kept as payments' copy (the `agreements` consumer, wired in lib.rs).

use coffer_events::catalogue::SUBSCRIPTION_CREATED;
use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

use super::commands;
use super::domain::KeptSubscription;

/// Whether the event is one of billing's `subscription.*` (created, updated, activated,
/// ...), each of which carries the subscription as it now stands. `invoice.upcoming` is
/// about a subscription too, but says nothing new of it.
fn announces_subscription(name: &str) -> bool {
    SUBSCRIPTION_CREATED.any_action(name)
}

pub struct SubscriptionCopies;

impl Handler for SubscriptionCopies {
    fn wants(&self, event: &Event) -> bool {
        announces_subscription(&event.name)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let kept = KeptSubscription::announced(&event.object_uuid.to_string(), &event.data)
            .map_err(|why| HandlerError::Permanent(format!("{}: {why}", event.name)))?;
        Ok(commands::keep_subscription(db, &kept, event.timestamp)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subscription_event_is_read_and_nothing_else() {
        for action in [
            "created",
            "updated",
            "activated",
            "suspended",
            "cancelled",
            "ended",
        ] {
            let name = format!("coffer.event.subscriptions.subscription.{action}");
            assert!(announces_subscription(&name), "{name}");
        }
        for other in [
            "coffer.event.subscriptions.invoice.upcoming",
            "coffer.event.subscriptions.charge_attempt.created",
            "coffer.event.payment_gateway.payment_source.created",
        ] {
            assert!(!announces_subscription(other), "{other}");
        }
    }
}
