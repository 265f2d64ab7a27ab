//! Accounts over HTTP (API.md, "Accounts"); their addresses and metadata are in
//! attachments/routes.rs.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::{ApiError, PathUuid};

use super::commands;
use super::views::{AccountDetail, AccountItem, BillingDataView};
use crate::state::IdentityState;

/// The accounts the caller may see.
#[utoipa::path(get, path = "/accounts", operation_id = "listAccounts", tag = "Accounts",
    responses((status = 200, description = "The caller's accounts", body = [AccountItem])))]
pub(crate) async fn list(
    state: web::Data<IdentityState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let rows = commands::list(&state, &caller).await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(AccountItem::from).collect::<Vec<_>>()))
}

/// One account, with its organisation.
#[utoipa::path(get, path = "/accounts/{account_uuid}", operation_id = "getAccount", tag = "Accounts",
    params(("account_uuid" = uuid::Uuid, Path, description = "The account")),
    responses((status = 200, description = "The account", body = AccountDetail),
        (status = 404, description = "No such account")))]
pub(crate) async fn get(
    state: web::Data<IdentityState>,
    caller: Caller,
    account: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let (account, organisation) = commands::visible(&state, &caller, account.into_inner()).await?;
    Ok(HttpResponse::Ok().json(AccountDetail::new(&account, &organisation)))
}

/// Where an account's invoices go.
#[utoipa::path(get, path = "/accounts/{account_uuid}/billing-data", operation_id = "getAccountBillingData", tag = "Accounts",
    params(("account_uuid" = uuid::Uuid, Path, description = "The account")),
    responses((status = 200, description = "The account's billing data", body = BillingDataView),
        (status = 404, description = "No such account, or none kept for it")))]
pub(crate) async fn billing_data(
    state: web::Data<IdentityState>,
    caller: Caller,
    account: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let b = commands::billing_data(&state, &caller, account.into_inner()).await?;
    Ok(HttpResponse::Ok().json(BillingDataView::new(
        &b.billing,
        &b.account,
        &b.organisation,
    )))
}
