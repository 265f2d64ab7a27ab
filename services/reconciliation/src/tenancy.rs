//! Whose objects are whose: every blueprint, source and report belongs to an account of an
//! organisation, as reconciliation's copy of identity's directory knows them.

use crate::error::ReconciliationError;
use coffer_auth::Caller;
use coffer_store::{Db, Store};
use uuid::Uuid;

/// An object of one account: what a caller must be allowed to touch to see it. Each
/// store's row says so beside its definition.
pub trait Owned {
    /// Its organisation and account, as stored.
    fn owner(&self) -> (&str, &str);
}

/// A store query for one object by its uuid.
pub type FindQuery<T> = fn(&mut Db<'_>, &str) -> diesel::QueryResult<Option<T>>;

/// The object `find` loads by `uuid`, once the caller may touch its account: 404 naming
/// `what` when there is none, 403 when it is another tenant's. One place, so every object
/// of the service answers a caller who may not see it alike.
pub async fn find_visible<T: Owned + Send + 'static>(
    store: &Store,
    caller: &Caller,
    what: &'static str,
    uuid: String,
    find: FindQuery<T>,
) -> Result<T, ReconciliationError> {
    let found = store
        .query(move |db| find(db, &uuid))
        .await?
        .ok_or_else(|| ReconciliationError::not_found(what))?;
    let (organisation, account) = found.owner();
    caller.require_account(
        account.parse().map_err(ReconciliationError::internal)?,
        organisation
            .parse()
            .map_err(ReconciliationError::internal)?,
    )?;
    Ok(found)
}

/// Refuses an account the directory does not know under `organisation` (404), or one the
/// caller may not touch (403).
pub async fn require_account(
    store: &Store,
    caller: &Caller,
    organisation: Uuid,
    account: Uuid,
) -> Result<(), ReconciliationError> {
    match owner_of(store, account).await? {
        Some(o) if o == organisation.to_string() => {
            Ok(caller.require_account(account, organisation)?)
        }
        _ => Err(ReconciliationError::not_found("Account")),
    }
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
) -> Result<(), ReconciliationError> {
    let owner = owner_of(store, account)
        .await?
        .ok_or(ReconciliationError::not_found("Account"))?;
    Ok(caller.require_account(
        account,
        owner.parse().map_err(ReconciliationError::internal)?,
    )?)
}

/// The organisation the directory files `account` under, if it knows the account.
async fn owner_of(store: &Store, account: Uuid) -> Result<Option<String>, ReconciliationError> {
    let key = account.to_string();
    Ok(store
        .query(move |db| coffer_directory::account_organisation(db, &key))
        .await?)
}
