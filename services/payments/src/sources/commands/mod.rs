//! Payment sources' use cases: keeping one and changing its custom parameters. Reading one
//! a caller may touch is shared/owned_source.rs (payments charge it again); the donor's
//! decision on one that waited for them is shared/source_decision.rs.

mod keep;

use coffer_auth::Caller;

pub(crate) use self::keep::{Keeping, keep};
use super::store;
use crate::command_kit::Parts;
use crate::error::PaymentsError;
use crate::shared::owned_source::load;

/// Replaces the custom parameters of a source the caller may touch.
pub(crate) async fn replace_parameters(
    state: &Parts,
    caller: &Caller,
    uuid: String,
    parameters: serde_json::Value,
) -> Result<serde_json::Value, PaymentsError> {
    let source = load(&state.store, caller, uuid).await?;
    let (uuid, now) = (source.uuid, state.clock.unix());
    let stored = parameters.clone();
    state
        .store
        .query(move |db| store::set_custom_parameters(db, &uuid, &stored, now))
        .await?;
    Ok(parameters)
}
