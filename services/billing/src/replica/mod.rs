//! What billing keeps of other services, from their events: identity's organisations and
//! accounts (coffer-directory), and payments' payment sources and supporters, enough to
//! check the references of a subscription. Each event carries the whole object; the newest
//! wins, and a redelivered older one changes nothing. The same consumer hands payments'
//! answers to the commands that act on them.

mod store;

use std::sync::Arc;

use coffer_events::{Event, Handler, HandlerError, Outbox};
use coffer_model::clock::Clock;
use coffer_store::Db;

pub use coffer_directory::account_organisation;
pub use store::{KnownSource, source, supporter_organisation};

use crate::{invoices, subscriptions};

/// The handler of billing's consumer (the `replica` worker).
pub struct Replica {
    pub outbox: Outbox,
    pub clock: Arc<dyn Clock>,
}

impl Replica {
    /// A payment may start a subscription, or answer a charge attempt.
    fn payment(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        if let Some(start) = subscriptions::events::payment_start(event) {
            subscriptions::commands::from_payment::start_from_payment(
                db,
                &self.outbox,
                self.clock.unix(),
                start,
            )?;
        }
        if let Some(result) = invoices::events::charge_result(event) {
            invoices::commands::results::apply_payment_result(
                db,
                &self.outbox,
                self.clock.unix(),
                &result,
            )?;
        }
        Ok(())
    }
}

impl Handler for Replica {
    /// Most of payments' events (a payment created, a refund) say nothing billing keeps;
    /// a charge attempt's payment matters only once it has a result.
    fn wants(&self, event: &Event) -> bool {
        match event.object.as_str() {
            "payment" => {
                subscriptions::events::payment_start(event).is_some()
                    || invoices::events::charge_result(event).is_some()
            }
            "payment_source" | "supporter" => true,
            _ => coffer_directory::concerns(event),
        }
    }

    /// Charge attempts' successes are applied together after the batch's other events
    /// (invoices/commands/paid_together.rs); nothing else in a batch bears on them.
    fn handle_many(&self, db: &mut Db<'_>, events: &[Event]) -> Result<(), HandlerError> {
        let mut paid = Vec::new();
        for event in events {
            if event.object == "payment"
                && subscriptions::events::payment_start(event).is_none()
                && let Some(result) = invoices::events::charge_result(event).filter(|r| r.succeeded)
            {
                paid.push(result);
                continue;
            }
            self.handle(db, event)?;
        }
        invoices::commands::paid_together::apply_successes(
            db,
            &self.outbox,
            self.clock.unix(),
            &paid,
        )
        .map_err(HandlerError::from)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let uuid = event.object_uuid.to_string();
        match event.object.as_str() {
            "organisation" | "account" => coffer_directory::apply(db, event).map(drop),
            "payment" => self.payment(db, event),
            "payment_source" => {
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
            }
            "supporter" => {
                let organisation = event.text("organisation_uuid")?;
                Ok(store::keep_supporter(
                    db,
                    &uuid,
                    &organisation,
                    event.timestamp,
                )?)
            }
            _ => Ok(()),
        }
    }
}
