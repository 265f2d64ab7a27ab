//! A payment source read for a caller who may touch it: payment sources answer it, and
//! payments charge it again (payments/commands/source_charge.rs).

use coffer_auth::Caller;
use coffer_store::Store;

use super::owner::require_owner;
use super::source::Source;
use super::source_store as recorded;
use crate::error::PaymentsError;

/// The source, once the caller may touch it.
pub(crate) async fn load(
    store: &Store,
    caller: &Caller,
    uuid: String,
) -> Result<Source, PaymentsError> {
    let source = store
        .query(move |db| recorded::find(db, &uuid))
        .await?
        .ok_or(PaymentsError::not_found("Payment source"))?;
    require_owner(caller, &source.account_uuid, &source.organisation_uuid)?;
    Ok(source)
}
