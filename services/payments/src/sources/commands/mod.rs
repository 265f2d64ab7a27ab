//! Payment sources' use cases: keeping one, reading it, changing its custom parameters,
//! and the donor's decision on one that waited for them (charging one again makes a
//! payment: payments/commands/source_charge.rs).

mod decide;
mod keep;

use coffer_auth::Caller;

pub(crate) use self::decide::{decide, decide_in};
pub(crate) use self::keep::{Keeping, keep};
use super::store;
use crate::command_kit::{Parts, require_owner};
use crate::error::PaymentsError;
use crate::shared::source::Source;
use crate::shared::source_store as recorded;

/// The source, once the caller may touch it.
pub(crate) async fn load(
    state: &Parts,
    caller: &Caller,
    uuid: String,
) -> Result<Source, PaymentsError> {
    let source = state
        .store
        .query(move |db| recorded::find(db, &uuid))
        .await?
        .ok_or(PaymentsError::NotFound("Payment source"))?;
    require_owner(caller, &source.account_uuid, &source.organisation_uuid)?;
    Ok(source)
}

/// Replaces the custom parameters of a source the caller may touch.
pub(crate) async fn replace_parameters(
    state: &Parts,
    caller: &Caller,
    uuid: String,
    parameters: serde_json::Value,
) -> Result<serde_json::Value, PaymentsError> {
    let source = load(state, caller, uuid).await?;
    let (uuid, now) = (source.uuid, state.clock.unix());
    let stored = parameters.clone();
    state
        .store
        .query(move |db| store::set_custom_parameters(db, &uuid, &stored, now))
        .await?;
    Ok(parameters)
}
