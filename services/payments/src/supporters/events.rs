//! What a supporter announces: itself, created or updated.

use coffer_events::{EventType, TraceContext, append};
use coffer_store::Db;

use crate::error::PaymentsError;
use crate::shared::supporter::Supporter;
use crate::state::PaymentsState;

/// Writes the supporter's event to the outbox and gives its response body.
pub(crate) fn announce(
    tx: &mut Db<'_>,
    state: &PaymentsState,
    kind: &EventType,
    supporter: &Supporter,
    trace: &TraceContext,
) -> Result<serde_json::Value, PaymentsError> {
    let body = serde_json::to_value(supporter).map_err(PaymentsError::internal)?;
    let object = supporter.uuid.parse().map_err(PaymentsError::internal)?;
    let organisation = supporter.organisation_uuid.parse().ok();
    let event = state
        .outbox
        .event(kind, object, organisation, None, body.clone());
    append(tx, &[event], Some(trace))?;
    Ok(body)
}
