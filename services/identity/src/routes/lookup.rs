//! Loading a path's object with the tenancy rule every identity read shares: 404 when it
//! does not exist, 403 when it belongs to someone else.

use coffer_auth::Caller;
use coffer_http::ApiError;
use coffer_model::ids::parse_uuid;

use crate::IdentityState;
use crate::store::rows::{AccountRow, OrganisationRow};
use crate::store::{accounts, organisations};

pub(super) fn uuid(property: &str, raw: &str) -> Result<String, ApiError> {
    parse_uuid(property, raw)
        .map(|u| u.to_string())
        .map_err(|e| ApiError::validation(vec![e]))
}

pub(super) async fn organisation(
    state: &IdentityState,
    caller: &Caller,
    raw_uuid: &str,
) -> Result<OrganisationRow, ApiError> {
    let uuid = uuid("organisation_uuid", raw_uuid)?;
    let row = state
        .store
        .query(move |c| organisations::find(c, &uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Organisation"))?;
    let id = row.uuid.parse().map_err(ApiError::internal)?;
    caller.require_organisation(id)?;
    Ok(row)
}

/// An organisation with its accounts, served from the directory cache when fresh.
pub(super) async fn organisation_with_accounts(
    state: &IdentityState,
    caller: &Caller,
    raw_uuid: &str,
) -> Result<(OrganisationRow, Vec<AccountRow>), ApiError> {
    let uuid = uuid("organisation_uuid", raw_uuid)?;
    let cached = state.directory.organisations.get(&uuid);
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
                    let accounts = accounts::of_organisation(c, &key)?;
                    Ok(Some((organisation, accounts)))
                })
                .await?
                .ok_or_else(|| ApiError::not_found("Organisation"))?;
            state.directory.organisations.insert(uuid, found.clone());
            found
        }
    };
    caller.require_organisation(organisation.uuid.parse().map_err(ApiError::internal)?)?;
    Ok((organisation, accounts))
}

pub(super) async fn account(
    state: &IdentityState,
    caller: &Caller,
    raw_uuid: &str,
) -> Result<(AccountRow, OrganisationRow), ApiError> {
    let uuid = uuid("account_uuid", raw_uuid)?;
    let (account, organisation) = state
        .store
        .query(move |c| accounts::find_with_organisation(c, &uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Account"))?;
    let account_id = account.uuid.parse().map_err(ApiError::internal)?;
    let organisation_id = organisation.uuid.parse().map_err(ApiError::internal)?;
    caller.require_account(account_id, organisation_id)?;
    Ok((account, organisation))
}

/// The caller's organisations as stored text; `None` for a platform caller.
pub(super) fn visible_organisations(caller: &Caller) -> Option<Vec<String>> {
    caller
        .organisation_filter()
        .map(|ids| ids.iter().map(ToString::to_string).collect())
}
