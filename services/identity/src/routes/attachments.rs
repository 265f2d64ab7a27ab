//! Addresses and metadata, which organisations and accounts both carry and which are read
//! the same way for either owner.

use actix_web::HttpResponse;
use coffer_auth::Caller;
use coffer_http::ApiError;

use super::lookup;
use super::views::AddressView;
use crate::IdentityState;
use crate::store::addresses::Owner;
use crate::store::{addresses, metadata};

#[derive(Debug, Clone, Copy)]
pub(super) enum OwnerKind {
    Organisation,
    Account,
}

/// The owner's stored uuid, once it is known to exist and to be the caller's.
async fn owner(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    raw: &str,
) -> Result<String, ApiError> {
    Ok(match kind {
        OwnerKind::Organisation => lookup::organisation(state, caller, raw).await?.uuid,
        OwnerKind::Account => lookup::account(state, caller, raw).await?.0.uuid,
    })
}

fn as_owner(kind: OwnerKind, uuid: &str) -> Owner<'_> {
    match kind {
        OwnerKind::Organisation => Owner::Organisation(uuid),
        OwnerKind::Account => Owner::Account(uuid),
    }
}

pub(super) async fn list_addresses(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    raw_owner: &str,
) -> Result<HttpResponse, ApiError> {
    let uuid = owner(state, caller, kind, raw_owner).await?;
    let rows = state
        .store
        .query(move |c| addresses::list(c, as_owner(kind, &uuid)))
        .await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(AddressView::from).collect::<Vec<_>>()))
}

pub(super) async fn get_address(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    raw_owner: &str,
    raw_address: &str,
) -> Result<HttpResponse, ApiError> {
    let uuid = owner(state, caller, kind, raw_owner).await?;
    let address = lookup::uuid("address_uuid", raw_address)?;
    let row = state
        .store
        .query(move |c| addresses::find(c, as_owner(kind, &uuid), &address))
        .await?
        .ok_or_else(|| ApiError::not_found("Address"))?;
    Ok(HttpResponse::Ok().json(AddressView::from(&row)))
}

pub(super) async fn get_metadata(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    raw_owner: &str,
) -> Result<HttpResponse, ApiError> {
    let uuid = owner(state, caller, kind, raw_owner).await?;
    let entries = state.store.query(move |c| metadata::get(c, &uuid)).await?;
    Ok(HttpResponse::Ok().json(entries))
}
