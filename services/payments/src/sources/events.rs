//! What a payment source announces: that it was kept, or that it failed.

use coffer_events::OutboxEvent;
use coffer_events::catalogue::{PAYMENT_SOURCE_CREATED, PAYMENT_SOURCE_FAILED};

use crate::failure::{Failure, internal};
use crate::shared::source::{Source, SourceStatus};
use crate::state::PaymentsState;

/// The event that announces `source` as it now stands; none while it is pending, as a
/// pending source is announced once the donor has decided.
pub(crate) fn announcement(
    state: &PaymentsState,
    source: &Source,
) -> Result<Option<OutboxEvent>, Failure> {
    let kind = match source.status {
        SourceStatus::Active => &PAYMENT_SOURCE_CREATED,
        SourceStatus::Failed => &PAYMENT_SOURCE_FAILED,
        SourceStatus::Pending => return Ok(None),
    };
    Ok(Some(state.outbox.event(
        kind,
        source.uuid.parse().map_err(internal)?,
        source.organisation_uuid.parse().ok(),
        source.account_uuid.parse().ok(),
        serde_json::to_value(source).map_err(internal)?,
    )))
}
