//! Whose objects are whose: every blueprint, source and report belongs to an account of an
//! organisation, as reconciliation's copy of identity's directory knows them.

use coffer_auth::Caller;
use coffer_http::ApiError;
use coffer_store::Store;
use uuid::Uuid;

/// Refuses an account the directory does not know under `organisation` (404), or one the
/// caller may not touch (403).
pub async fn require_account(
    store: &Store,
    caller: &Caller,
    organisation: Uuid,
    account: Uuid,
) -> Result<(), ApiError> {
    let key = account.to_string();
    let owner = store
        .query(move |db| coffer_directory::account_organisation(db, &key))
        .await?;
    match owner {
        Some(o) if o == organisation.to_string() => caller.require_account(account, organisation),
        _ => Err(ApiError::not_found("Account")),
    }
}

/// Refuses an object of an account the caller may not touch.
pub fn require_owner(caller: &Caller, organisation: &str, account: &str) -> Result<(), ApiError> {
    caller.require_account(
        account.parse().map_err(ApiError::internal)?,
        organisation.parse().map_err(ApiError::internal)?,
    )
}

/// The organisations a list may show: all of the caller's, or `None` for a platform caller.
pub fn visible(caller: &Caller) -> Option<Vec<String>> {
    caller
        .organisation_filter()
        .map(|ids| ids.iter().map(ToString::to_string).collect())
}

/// Refuses an account the directory does not know (404) or the caller may not see (403).
pub async fn require_known_account(
    store: &Store,
    caller: &Caller,
    account: Uuid,
) -> Result<(), ApiError> {
    let key = account.to_string();
    let owner = store
        .query(move |db| coffer_directory::account_organisation(db, &key))
        .await?
        .ok_or_else(|| ApiError::not_found("Account"))?;
    caller.require_account(account, owner.parse().map_err(ApiError::internal)?)
}
