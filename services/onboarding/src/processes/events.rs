//! What processes emit.

use coffer_events::Outbox;
use coffer_events::catalogue::EventType;
use coffer_events::outbox::OutboxEvent;
use uuid::Uuid;

use super::store::ProcessRow;
use super::views::ProcessRecord;

pub fn of(outbox: &Outbox, kind: &EventType, row: &ProcessRow, now: i64) -> OutboxEvent {
    let id: Uuid = row.uuid.parse().unwrap_or_default();
    let organisation: Option<Uuid> = row
        .results
        .as_deref()
        .and_then(|r| serde_json::from_str::<serde_json::Value>(r).ok())
        .and_then(|r| {
            r["organisation"]["uuid"]
                .as_str()
                .and_then(|u| u.parse().ok())
        });
    outbox.event(
        kind,
        id,
        organisation,
        None,
        ProcessRecord::for_event(row, now),
    )
}
