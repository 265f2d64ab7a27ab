//! Organisations over HTTP (API.md, "Organisations"); their addresses and metadata are in
//! attachments/routes.rs.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::ApiError;
use coffer_model::paging::{PagingLimits, PagingQuery};
use serde::Deserialize;
use serde_json::json;

use super::commands;
use super::views::{OrganisationDetail, OrganisationItem};
use crate::state::IdentityState;

const SEARCH_LIMITS: PagingLimits = PagingLimits::new(10, 500);

pub(crate) async fn list(
    state: web::Data<IdentityState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let rows = commands::list(&state, &caller).await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(OrganisationItem::from).collect::<Vec<_>>()))
}

#[derive(Debug, Deserialize)]
pub(crate) struct SearchQuery {
    name: Option<String>,
    #[serde(flatten)]
    paging: PagingQuery,
}

pub(crate) async fn search(
    state: web::Data<IdentityState>,
    caller: Caller,
    query: web::Query<SearchQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let paging = query
        .paging
        .resolve(SEARCH_LIMITS)
        .map_err(ApiError::validation)?;
    let (total, rows) = commands::search(&state, &caller, query.name, paging).await?;
    let hits: Vec<_> = rows.iter().map(OrganisationItem::from).collect();
    Ok(HttpResponse::Ok().json(json!({ "summary": { "hits": total }, "hits": hits })))
}

pub(crate) async fn get(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (organisation, accounts) = commands::get(&state, &caller, &path).await?;
    Ok(HttpResponse::Ok().json(OrganisationDetail::new(&organisation, &accounts)))
}
