//! Accounts over HTTP (API.md, "Accounts"); their addresses and metadata are in
//! attachments/routes.rs.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::ApiError;

use super::commands;
use super::views::{AccountDetail, AccountItem, BillingDataView};
use crate::state::IdentityState;

pub(crate) async fn list(
    state: web::Data<IdentityState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let rows = commands::list(&state, &caller).await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(AccountItem::from).collect::<Vec<_>>()))
}

pub(crate) async fn get(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (account, organisation) = commands::visible(&state, &caller, &path).await?;
    Ok(HttpResponse::Ok().json(AccountDetail::new(&account, &organisation)))
}

pub(crate) async fn billing_data(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let b = commands::billing_data(&state, &caller, &path).await?;
    Ok(HttpResponse::Ok().json(BillingDataView::new(
        &b.billing,
        &b.account,
        &b.organisation,
    )))
}
