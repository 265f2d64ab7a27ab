//! Billing's events: one line per announcement, in the caller's transaction.

use coffer_events::{EventType, Outbox, TraceContext, append};
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::Value;

/// Appends an event about `object` (a uuid Coffer made) of an organisation's account:
/// `(object, organisation, account)`.
pub fn announce(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    kind: &EventType,
    (object, organisation, account): (&str, &str, &str),
    data: Value,
    trace: Option<&TraceContext>,
) -> Result<(), DieselError> {
    let id = object
        .parse()
        .map_err(|e| DieselError::SerializationError(Box::new(e)))?;
    let event = outbox.event(
        kind,
        id,
        organisation.parse().ok(),
        account.parse().ok(),
        data,
    );
    append(tx, &[event], trace)
}
