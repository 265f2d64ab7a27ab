//! Addresses and metadata over HTTP, under either owner's path (API.md, "Organisations"
//! and "Accounts").

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::{ApiError, PathUuid, PathUuids};

use super::commands;
use super::domain::OwnerKind;
use super::views::AddressView;
use crate::state::IdentityState;

async fn addresses(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    owner: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let rows = commands::addresses(state, caller, kind, owner.into_inner()).await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(AddressView::from).collect::<Vec<_>>()))
}

async fn address(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    path: PathUuids<2>,
) -> Result<HttpResponse, ApiError> {
    let [owner, address] = path.into_inner();
    let row = commands::address(state, caller, kind, owner, address).await?;
    Ok(HttpResponse::Ok().json(AddressView::from(&row)))
}

async fn metadata(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    owner: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let entries = commands::metadata(state, caller, kind, owner.into_inner()).await?;
    Ok(HttpResponse::Ok().json(entries))
}

/// The organisation's addresses.
#[utoipa::path(get, path = "/organisations/{organisation_uuid}/addresses", operation_id = "listOrganisationAddresses", tag = "Organisations",
    params(("organisation_uuid" = uuid::Uuid, Path, description = "The organisation")),
    responses((status = 200, description = "The organisation's addresses", body = [AddressView]),
        (status = 404, description = "No such organisation")))]
pub(crate) async fn organisation_addresses(
    state: web::Data<IdentityState>,
    caller: Caller,
    owner: PathUuid,
) -> Result<HttpResponse, ApiError> {
    addresses(&state, &caller, OwnerKind::Organisation, owner).await
}

/// One of the organisation's addresses.
#[utoipa::path(get, path = "/organisations/{organisation_uuid}/addresses/{address_uuid}", operation_id = "getOrganisationAddress", tag = "Organisations",
    params(("organisation_uuid" = uuid::Uuid, Path, description = "The organisation"), ("address_uuid" = uuid::Uuid, Path, description = "The address")),
    responses((status = 200, description = "One of the organisation's addresses", body = AddressView),
        (status = 404, description = "No such organisation or address")))]
pub(crate) async fn organisation_address(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: PathUuids<2>,
) -> Result<HttpResponse, ApiError> {
    address(&state, &caller, OwnerKind::Organisation, path).await
}

/// The organisation's metadata, names to values.
#[utoipa::path(get, path = "/organisations/{organisation_uuid}/metadata", operation_id = "getOrganisationMetadata", tag = "Organisations",
    params(("organisation_uuid" = uuid::Uuid, Path, description = "The organisation")),
    responses((status = 200, description = "The organisation's metadata, names to values", body = std::collections::BTreeMap<String, String>),
        (status = 404, description = "No such organisation")))]
pub(crate) async fn organisation_metadata(
    state: web::Data<IdentityState>,
    caller: Caller,
    owner: PathUuid,
) -> Result<HttpResponse, ApiError> {
    metadata(&state, &caller, OwnerKind::Organisation, owner).await
}

/// The account's addresses.
#[utoipa::path(get, path = "/accounts/{account_uuid}/addresses", operation_id = "listAccountAddresses", tag = "Accounts",
    params(("account_uuid" = uuid::Uuid, Path, description = "The account")),
    responses((status = 200, description = "The account's addresses", body = [AddressView]),
        (status = 404, description = "No such account")))]
pub(crate) async fn account_addresses(
    state: web::Data<IdentityState>,
    caller: Caller,
    owner: PathUuid,
) -> Result<HttpResponse, ApiError> {
    addresses(&state, &caller, OwnerKind::Account, owner).await
}

/// One of the account's addresses.
#[utoipa::path(get, path = "/accounts/{account_uuid}/addresses/{address_uuid}", operation_id = "getAccountAddress", tag = "Accounts",
    params(("account_uuid" = uuid::Uuid, Path, description = "The account"), ("address_uuid" = uuid::Uuid, Path, description = "The address")),
    responses((status = 200, description = "One of the account's addresses", body = AddressView),
        (status = 404, description = "No such account or address")))]
pub(crate) async fn account_address(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: PathUuids<2>,
) -> Result<HttpResponse, ApiError> {
    address(&state, &caller, OwnerKind::Account, path).await
}

/// The account's metadata, names to values.
#[utoipa::path(get, path = "/accounts/{account_uuid}/metadata", operation_id = "getAccountMetadata", tag = "Accounts",
    params(("account_uuid" = uuid::Uuid, Path, description = "The account")),
    responses((status = 200, description = "The account's metadata, names to values", body = std::collections::BTreeMap<String, String>),
        (status = 404, description = "No such account")))]
pub(crate) async fn account_metadata(
    state: web::Data<IdentityState>,
    caller: Caller,
    owner: PathUuid,
) -> Result<HttpResponse, ApiError> {
    metadata(&state, &caller, OwnerKind::Account, owner).await
}
