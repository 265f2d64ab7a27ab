use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::ApiError;

use super::attachments::{self, OwnerKind};
use super::lookup::{self, visible_organisations};
use super::views::{AccountDetail, AccountItem, BillingDataView};
use crate::IdentityState;
use crate::store::{accounts, billing};

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
    attachments::list_addresses(&state, &caller, OwnerKind::Account, &path).await
}

pub(super) async fn address(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (owner, address) = path.into_inner();
    attachments::get_address(&state, &caller, OwnerKind::Account, &owner, &address).await
}

pub(super) async fn metadata(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    attachments::get_metadata(&state, &caller, OwnerKind::Account, &path).await
}
