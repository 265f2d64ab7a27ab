//! What endpoints emit (an endpoint Coffer turned off), and how they follow partners'
//! integrations: an endpoint a partner made is turned off when the partner's integration
//! with its organisation is disabled, so the partner's access ends for deliveries as it
//! does for API calls.

use coffer_events::catalogue::WEBHOOK_ENDPOINT_DISABLED;
use coffer_events::{Event, Handler, HandlerError, Outbox, OutboxEvent};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::{Db, StoreError};
use std::sync::Arc;

use super::store as endpoints;

/// Why an endpoint was turned off with its partner's integration.
pub const PARTNER_INTEGRATION_DISABLED: &str = "partner_integration_disabled";

/// Announces that Coffer turned endpoint `uuid` off (its list form says why).
pub(crate) fn disabled(
    tx: &mut Db<'_>,
    secrets: &Secrets,
    outbox: &Outbox,
    uuid: &str,
) -> Result<(), StoreError> {
    let Some(endpoint) = endpoints::find(tx, secrets, uuid)? else {
        return Ok(());
    };
    let parse = |raw: &str| raw.parse::<uuid::Uuid>().ok();
    let data = serde_json::to_value(endpoint.item())
        .map_err(|e| StoreError::from(diesel::result::Error::SerializationError(Box::new(e))))?;
    let event: OutboxEvent = outbox.event(
        &WEBHOOK_ENDPOINT_DISABLED,
        parse(&endpoint.uuid).unwrap_or_default(),
        parse(&endpoint.organisation_uuid),
        endpoint.account_uuid.as_deref().and_then(parse),
        data,
    );
    coffer_events::append(tx, &[event], None)?;
    Ok(())
}

/// The handler of notifications' `partners` consumer: keeps the copy of partners'
/// integrations (crates/partners) and turns off the endpoints of a disabled one.
pub struct PartnerAccess {
    pub secrets: Secrets,
    pub outbox: Outbox,
    pub clock: Arc<dyn Clock>,
}

impl Handler for PartnerAccess {
    fn wants(&self, event: &Event) -> bool {
        coffer_partners::concerns(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        coffer_partners::apply(db, event)?;
        // Only a disabled integration ends the partner's access; the integration's own
        // constant for it is the event's type.
        if !coffer_events::catalogue::PARTNER_INTEGRATION_DISABLED.is(&event.name) {
            return Ok(());
        }
        let (Some(partner), Some(organisation)) = (
            event.data["partner_uuid"].as_str(),
            event.data["organisation_uuid"].as_str(),
        ) else {
            return Err(HandlerError::Permanent(format!(
                "{} names no partner or organisation",
                event.name
            )));
        };
        let now = self.clock.unix();
        for uuid in endpoints::enabled_of_partner(db, partner, organisation)? {
            if endpoints::disable(db, &uuid, PARTNER_INTEGRATION_DISABLED, now)? {
                disabled(db, &self.secrets, &self.outbox, &uuid).map_err(|e| {
                    HandlerError::Transient(format!("announcing a disabled endpoint: {e}"))
                })?;
            }
        }
        Ok(())
    }
}
