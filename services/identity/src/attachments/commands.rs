//! Attachment use cases: adding an address to an organisation or an account, setting
//! either's metadata, and the reads the API serves.

use std::collections::BTreeMap;

use coffer_auth::Caller;
use coffer_store::Store;
use uuid::Uuid;

use super::domain::{Owner, OwnerKind, validate_metadata};
use super::events::owner_updated;
use super::store::{self as attachments, AddressRow, OwnerRef};
use crate::address::AddressInput;
use crate::error::CommandError;
use crate::state::IdentityState;
use crate::writes::Writes;
use crate::{accounts, organisations};

pub(crate) async fn add_organisation_address(
    writes: &Writes,
    organisation: Uuid,
    input: AddressInput,
) -> Result<AddressRow, CommandError> {
    let org = organisations::commands::existing(&writes.store, organisation).await?;
    add_address(writes, Owner::Organisation(org.uuid), input).await
}

pub(crate) async fn add_account_address(
    writes: &Writes,
    account: Uuid,
    input: AddressInput,
) -> Result<AddressRow, CommandError> {
    let acc = accounts::commands::existing(&writes.store, account).await?;
    add_address(writes, Owner::Account(acc.uuid), input).await
}

async fn add_address(
    writes: &Writes,
    owner: Owner,
    input: AddressInput,
) -> Result<AddressRow, CommandError> {
    let valid = input.validate().map_err(CommandError::invalid_all)?;
    let row = AddressRow::new(valid, &owner, writes.clock.unix());
    let stored = row.clone();
    writes
        .announcing(move |tx, outbox| {
            attachments::insert_address(tx, &stored)?;
            Ok(vec![owner_updated(tx, outbox, &owner)?])
        })
        .await?;
    Ok(row)
}

/// Sets metadata keys of an organisation or an account (whichever `owner` is); returns
/// all of its metadata.
pub(crate) async fn set_metadata(
    writes: &Writes,
    owner: Uuid,
    entries: BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, CommandError> {
    validate_metadata(&entries).map_err(CommandError::invalid_all)?;
    let owner = existing_owner(&writes.store, owner).await?;
    let key = owner.uuid().to_owned();
    let written = key.clone();
    writes
        .announcing(move |tx, outbox| {
            attachments::upsert_metadata(tx, &written, &entries)?;
            Ok(vec![owner_updated(tx, outbox, &owner)?])
        })
        .await?;
    Ok(writes
        .store
        .query(move |c| attachments::metadata(c, &key))
        .await?)
}

async fn existing_owner(store: &Store, uuid: Uuid) -> Result<Owner, CommandError> {
    match organisations::commands::existing(store, uuid).await {
        Ok(o) => Ok(Owner::Organisation(o.uuid)),
        Err(CommandError::Common(coffer_error::CommonError::NotFound(_))) => {
            accounts::commands::existing(store, uuid)
                .await
                .map(|a| Owner::Account(a.uuid))
                .map_err(|_| CommandError::not_found("organisation or account"))
        }
        Err(e) => Err(e),
    }
}

fn stored(owner: &Owner) -> OwnerRef<'_> {
    match owner {
        Owner::Organisation(u) => OwnerRef::Organisation(u),
        Owner::Account(u) => OwnerRef::Account(u),
    }
}

/// The owner at a path, once it is known to exist and to be the caller's.
async fn visible_owner(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    owner: Uuid,
) -> Result<Owner, CommandError> {
    let uuid = match kind {
        OwnerKind::Organisation => {
            organisations::commands::visible(state, caller, owner)
                .await?
                .uuid
        }
        OwnerKind::Account => {
            accounts::commands::visible(state, caller, owner)
                .await?
                .0
                .uuid
        }
    };
    Ok(Owner::new(kind, uuid))
}

pub(crate) async fn addresses(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    owner: Uuid,
) -> Result<Vec<AddressRow>, CommandError> {
    let owner = visible_owner(state, caller, kind, owner).await?;
    Ok(state
        .store
        .query(move |c| attachments::list_addresses(c, stored(&owner)))
        .await?)
}

pub(crate) async fn address(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    owner: Uuid,
    address: Uuid,
) -> Result<AddressRow, CommandError> {
    let owner = visible_owner(state, caller, kind, owner).await?;
    let address = address.to_string();
    state
        .store
        .query(move |c| attachments::find_address(c, stored(&owner), &address))
        .await?
        .ok_or(CommandError::not_found("Address"))
}

pub(crate) async fn metadata(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    owner: Uuid,
) -> Result<BTreeMap<String, String>, CommandError> {
    let owner = visible_owner(state, caller, kind, owner).await?;
    Ok(state
        .store
        .query(move |c| attachments::metadata(c, owner.uuid()))
        .await?)
}
