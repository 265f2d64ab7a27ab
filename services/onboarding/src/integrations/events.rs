//! What integrations emit: the whole integration, which every service's copy upserts.

use coffer_events::Outbox;
use coffer_events::catalogue::EventType;
use coffer_events::outbox::OutboxEvent;
use uuid::Uuid;

use super::store::IntegrationRow;

pub fn of(outbox: &Outbox, kind: &EventType, row: &IntegrationRow) -> OutboxEvent {
    let id: Uuid = row.uuid.parse().unwrap_or_default();
    let organisation: Option<Uuid> = row.organisation_uuid.parse().ok();
    outbox.event(
        kind,
        id,
        organisation,
        None,
        serde_json::to_value(row).unwrap_or(serde_json::Value::Null),
    )
}
