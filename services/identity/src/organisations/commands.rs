//! Organisation use cases: creating one, and the reads the API serves.

use coffer_auth::Caller;
use coffer_model::paging::Paging;
use coffer_store::Store;
use uuid::Uuid;

use super::cache::DirectoryCache;
use super::domain::OrganisationInput;
use super::events;
use super::store as organisations;
use crate::directory::{self, AccountRow, OrganisationRow};
use crate::error::CommandError;
use crate::state::IdentityState;
use crate::tenancy::visible_organisations;
use crate::writes::Writes;

/// SPEC.md caps List Organisations at 500 records; search pages beyond that.
const LIST_CAP: i64 = 500;

pub(crate) async fn create(
    writes: &Writes,
    input: OrganisationInput,
) -> Result<OrganisationRow, CommandError> {
    let valid = input.validate().map_err(CommandError::invalid_all)?;
    let row = OrganisationRow {
        uuid: Uuid::new_v4().to_string(),
        name: valid.name,
        created: writes.clock.unix(),
        approval_status: valid.approval_status,
        active: true,
        merchant_category_code: valid.merchant_category_code,
        locale: valid.locale,
    };
    let stored = row.clone();
    writes
        .announcing(move |tx, outbox| {
            organisations::insert(tx, &stored)?;
            Ok(vec![events::created(tx, outbox, &stored.uuid)?])
        })
        .await?;
    Ok(row)
}

/// An organisation an operator names, which must exist.
pub(crate) async fn existing(store: &Store, uuid: Uuid) -> Result<OrganisationRow, CommandError> {
    let key = uuid.to_string();
    store
        .query(move |c| organisations::find(c, &key))
        .await?
        .ok_or(CommandError::not_found("organisation"))
}

/// The first organisation ever created, if any: the demo one in a standalone install.
pub(crate) async fn first(store: &Store) -> Result<Option<String>, CommandError> {
    let rows = store.query(|c| organisations::list(c, None, 1)).await?;
    Ok(rows.into_iter().next().map(|o| o.uuid))
}

pub(crate) async fn list(
    state: &IdentityState,
    caller: &Caller,
) -> Result<Vec<OrganisationRow>, CommandError> {
    let only = visible_organisations(caller);
    Ok(state
        .store
        .query(move |c| organisations::list(c, only.as_deref(), LIST_CAP))
        .await?)
}

/// A page of the caller's organisations whose name contains `name`, and their total.
pub(crate) async fn search(
    state: &IdentityState,
    caller: &Caller,
    name: Option<String>,
    paging: Paging,
) -> Result<(i64, Vec<OrganisationRow>), CommandError> {
    let only = visible_organisations(caller);
    let name = name.filter(|n| !n.trim().is_empty());
    Ok(state
        .store
        .query(move |c| {
            organisations::search(
                c,
                only.as_deref(),
                name.as_deref(),
                paging.offset(),
                paging.limit(),
            )
        })
        .await?)
}

/// The organisation at a path, with the tenancy rule every read shares: 404 when it does
/// not exist, 403 when it is someone else's.
pub(crate) async fn visible(
    state: &IdentityState,
    caller: &Caller,
    organisation: Uuid,
) -> Result<OrganisationRow, CommandError> {
    let uuid = organisation.to_string();
    let row = state
        .store
        .query(move |c| organisations::find(c, &uuid))
        .await?
        .ok_or(CommandError::not_found("Organisation"))?;
    let id = row.uuid.parse().map_err(CommandError::internal)?;
    caller.require_organisation(id)?;
    Ok(row)
}

/// An organisation with its accounts, served from the directory cache when fresh.
pub(crate) async fn get(
    state: &IdentityState,
    directory: &DirectoryCache,
    caller: &Caller,
    organisation: Uuid,
) -> Result<(OrganisationRow, Vec<AccountRow>), CommandError> {
    let uuid = organisation.to_string();
    let cached = directory.organisations.get(&uuid);
    let (organisation, accounts) = match cached {
        Some(found) => found,
        None => {
            let key = uuid.clone();
            let found = state
                .store
                .query(move |c| {
                    let Some(organisation) = organisations::find(c, &key)? else {
                        return Ok(None);
                    };
                    let accounts = directory::accounts_of(c, &key)?;
                    Ok(Some((organisation, accounts)))
                })
                .await?
                .ok_or(CommandError::not_found("Organisation"))?;
            directory.organisations.insert(uuid, found.clone());
            found
        }
    };
    caller.require_organisation(organisation.uuid.parse().map_err(CommandError::internal)?)?;
    Ok((organisation, accounts))
}
