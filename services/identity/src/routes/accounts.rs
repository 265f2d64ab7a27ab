use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::ApiError;

use super::lookup::{self, visible_organisations};
use super::views::{AccountDetail, AccountItem, AddressView, BillingDataView};
use crate::IdentityState;
use crate::store::addresses::Owner;
use crate::store::{accounts, addresses, billing, metadata as meta};

/// The same cap as List Organisations: a plain array has no paging.
const LIST_CAP: i64 = 500;

pub(super) async fn list(
    state: web::Data<IdentityState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let organisations = visible_organisations(&caller);
    let grants: Vec<String> = caller
        .account_grants()
        .iter()
        .map(ToString::to_string)
        .collect();
    let rows = state
        .store
        .query(move |c| {
            let visible = organisations.as_deref().map(|o| (o, grants.as_slice()));
            accounts::list(c, visible, LIST_CAP)
        })
        .await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(AccountItem::from).collect::<Vec<_>>()))
}

pub(super) async fn get(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (account, organisation) = lookup::account(&state, &caller, &path).await?;
    Ok(HttpResponse::Ok().json(AccountDetail::new(&account, &organisation)))
}

pub(super) async fn billing_data(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (account, organisation) = lookup::account(&state, &caller, &path).await?;
    let uuid = account.uuid.clone();
    let billing = state
        .store
        .query(move |c| billing::find(c, &uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Billing data"))?;
    Ok(HttpResponse::Ok().json(BillingDataView::new(&billing, &account, &organisation)))
}

pub(super) async fn addresses(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (account, _) = lookup::account(&state, &caller, &path).await?;
    let rows = state
        .store
        .query(move |c| addresses::list(c, Owner::Account(&account.uuid)))
        .await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(AddressView::from).collect::<Vec<_>>()))
}

pub(super) async fn address(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (account_uuid, address_uuid) = path.into_inner();
    let (account, _) = lookup::account(&state, &caller, &account_uuid).await?;
    let address_uuid = lookup::uuid("address_uuid", &address_uuid)?;
    let row = state
        .store
        .query(move |c| addresses::find(c, Owner::Account(&account.uuid), &address_uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Address"))?;
    Ok(HttpResponse::Ok().json(AddressView::from(&row)))
}

pub(super) async fn metadata(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (account, _) = lookup::account(&state, &caller, &path).await?;
    let entries = state
        .store
        .query(move |c| meta::get(c, &account.uuid))
        .await?;
    Ok(HttpResponse::Ok().json(entries))
}
