//! Account use cases: creating one and setting its billing data, and the reads the API
//! serves.

use coffer_auth::Caller;
use coffer_store::Store;
use uuid::Uuid;

use super::domain::{BillingInput, account_name};
use super::events;
use super::store::{self as accounts, BillingRow};
use crate::directory::{self, AccountRow, OrganisationRow};
use crate::error::CommandError;
use crate::organisations::commands::existing as existing_organisation;
use crate::organisations::events as organisation_events;
use crate::state::IdentityState;
use crate::tenancy::visible_organisations;
use crate::writes::Writes;

/// The same cap as List Organisations: a plain array has no paging.
const LIST_CAP: i64 = 500;

/// An account's billing data with the account and organisation it is shown with.
pub(crate) struct BillingData {
    pub billing: BillingRow,
    pub account: AccountRow,
    pub organisation: OrganisationRow,
}

pub(crate) async fn create(
    writes: &Writes,
    organisation: Uuid,
    name: &str,
) -> Result<(AccountRow, OrganisationRow), CommandError> {
    let name = account_name(name).map_err(CommandError::invalid_all)?;
    let org = existing_organisation(&writes.store, organisation).await?;
    let row = AccountRow {
        uuid: Uuid::new_v4().to_string(),
        organisation_uuid: org.uuid.clone(),
        name,
        created: writes.clock.unix(),
        active: true,
    };
    let stored = row.clone();
    writes
        .announcing(move |tx, outbox| {
            accounts::insert(tx, &stored)?;
            // The organisation's single form lists its accounts, so it changed too.
            Ok(vec![
                events::created(tx, outbox, &stored.uuid)?,
                organisation_events::updated(tx, outbox, &stored.organisation_uuid)?,
            ])
        })
        .await?;
    Ok((row, org))
}

/// Sets an account's billing data.
pub(crate) async fn set_billing_data(
    writes: &Writes,
    account: Uuid,
    input: BillingInput,
) -> Result<BillingData, CommandError> {
    let valid = input.validate().map_err(CommandError::invalid_all)?;
    let acc = existing(&writes.store, account).await?;
    let organisation = acc
        .organisation_uuid
        .parse()
        .map_err(|_| CommandError::not_found("organisation"))?;
    let org = existing_organisation(&writes.store, organisation).await?;
    let row = BillingRow::new(&acc.uuid, &valid);
    let stored = row.clone();
    writes
        .announcing(move |tx, outbox| {
            accounts::upsert_billing(tx, &stored)?;
            Ok(vec![events::updated(tx, outbox, &stored.account_uuid)?])
        })
        .await?;
    Ok(BillingData {
        billing: row,
        account: acc,
        organisation: org,
    })
}

/// An account an operator names, which must exist.
pub(crate) async fn existing(store: &Store, uuid: Uuid) -> Result<AccountRow, CommandError> {
    let key = uuid.to_string();
    store
        .query(move |c| accounts::find(c, &key))
        .await?
        .ok_or(CommandError::not_found("account"))
}

pub(crate) async fn uuids_of(
    store: &Store,
    organisation: &str,
) -> Result<Vec<String>, CommandError> {
    let key = organisation.to_owned();
    let rows = store
        .query(move |c| directory::accounts_of(c, &key))
        .await?;
    Ok(rows.into_iter().map(|a| a.uuid).collect())
}

/// The caller's accounts: those of its organisations and those granted to it.
pub(crate) async fn list(
    state: &IdentityState,
    caller: &Caller,
) -> Result<Vec<AccountRow>, CommandError> {
    let organisations = visible_organisations(caller);
    let grants: Vec<String> = caller
        .account_grants()
        .iter()
        .map(ToString::to_string)
        .collect();
    Ok(state
        .store
        .query(move |c| {
            let visible = organisations.as_deref().map(|o| (o, grants.as_slice()));
            accounts::list(c, visible, LIST_CAP)
        })
        .await?)
}

/// The account at a path, with the tenancy rule every read shares: 404 when it does not
/// exist, 403 when it is someone else's.
pub(crate) async fn visible(
    state: &IdentityState,
    caller: &Caller,
    account: Uuid,
) -> Result<(AccountRow, OrganisationRow), CommandError> {
    let uuid = account.to_string();
    let (account, organisation) = state
        .store
        .query(move |c| accounts::find_with_organisation(c, &uuid))
        .await?
        .ok_or(CommandError::not_found("Account"))?;
    let account_id = account.uuid.parse().map_err(CommandError::internal)?;
    let organisation_id = organisation.uuid.parse().map_err(CommandError::internal)?;
    caller.require_account(account_id, organisation_id)?;
    Ok((account, organisation))
}

pub(crate) async fn billing_data(
    state: &IdentityState,
    caller: &Caller,
    account: Uuid,
) -> Result<BillingData, CommandError> {
    let (account, organisation) = visible(state, caller, account).await?;
    let uuid = account.uuid.clone();
    let billing = state
        .store
        .query(move |c| accounts::find_billing(c, &uuid))
        .await?
        .ok_or(CommandError::not_found("Billing data"))?;
    Ok(BillingData {
        billing,
        account,
        organisation,
    })
}
