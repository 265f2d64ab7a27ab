//! Billing's events: one line per announcement, in the caller's transaction.

use coffer_events::{EventType, Outbox, OutboxEvent, TraceContext, append};
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::Value;

/// Appends an event about `object` (a uuid Coffer made) of an organisation's account:
/// `(object, organisation, account)`.
pub fn announce(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    kind: &EventType,
    about: (&str, &str, &str),
    data: Value,
    trace: Option<&TraceContext>,
) -> Result<(), DieselError> {
    let event = event(outbox, kind, about, data)?;
    append(tx, &[event], trace)
}

/// The event [`announce`] appends, for a caller that appends many together.
pub fn event(
    outbox: &Outbox,
    kind: &EventType,
    (object, organisation, account): (&str, &str, &str),
    data: Value,
) -> Result<OutboxEvent, DieselError> {
    let id = object
        .parse()
        .map_err(|e| DieselError::SerializationError(Box::new(e)))?;
    Ok(outbox.event(
        kind,
        id,
        organisation.parse().ok(),
        account.parse().ok(),
        data,
    ))
}
