//! Addresses and metadata over HTTP, under either owner's path (API.md, "Organisations"
//! and "Accounts").

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::ApiError;

use super::commands;
use super::domain::OwnerKind;
use super::views::AddressView;
use crate::state::IdentityState;

async fn addresses(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    owner: &str,
) -> Result<HttpResponse, ApiError> {
    let rows = commands::addresses(state, caller, kind, owner).await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(AddressView::from).collect::<Vec<_>>()))
}

async fn address(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (owner, address) = path.into_inner();
    let row = commands::address(state, caller, kind, &owner, &address).await?;
    Ok(HttpResponse::Ok().json(AddressView::from(&row)))
}

async fn metadata(
    state: &IdentityState,
    caller: &Caller,
    kind: OwnerKind,
    owner: &str,
) -> Result<HttpResponse, ApiError> {
    let entries = commands::metadata(state, caller, kind, owner).await?;
    Ok(HttpResponse::Ok().json(entries))
}

pub(crate) async fn organisation_addresses(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    addresses(&state, &caller, OwnerKind::Organisation, &path).await
}

pub(crate) async fn organisation_address(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    address(&state, &caller, OwnerKind::Organisation, path).await
}

pub(crate) async fn organisation_metadata(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    metadata(&state, &caller, OwnerKind::Organisation, &path).await
}

pub(crate) async fn account_addresses(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    addresses(&state, &caller, OwnerKind::Account, &path).await
}

pub(crate) async fn account_address(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    address(&state, &caller, OwnerKind::Account, path).await
}

pub(crate) async fn account_metadata(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    metadata(&state, &caller, OwnerKind::Account, &path).await
}
