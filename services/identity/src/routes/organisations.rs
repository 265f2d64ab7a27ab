use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::ApiError;
use coffer_model::paging::{PagingLimits, PagingQuery};
use serde::Deserialize;
use serde_json::json;

use super::attachments::{self, OwnerKind};
use super::lookup::{self, visible_organisations};
use super::views::{OrganisationDetail, OrganisationItem};
use crate::IdentityState;
use crate::store::organisations;

/// SPEC.md caps List Organisations at 500 records; search pages beyond that.
const LIST_CAP: i64 = 500;
const SEARCH_LIMITS: PagingLimits = PagingLimits::new(10, 500);

pub(super) async fn list(
    state: web::Data<IdentityState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let only = visible_organisations(&caller);
    let rows = state
        .store
        .query(move |c| organisations::list(c, only.as_deref(), LIST_CAP))
        .await?;
    Ok(HttpResponse::Ok().json(rows.iter().map(OrganisationItem::from).collect::<Vec<_>>()))
}

#[derive(Debug, Deserialize)]
pub(super) struct SearchQuery {
    name: Option<String>,
    #[serde(flatten)]
    paging: PagingQuery,
}

pub(super) async fn search(
    state: web::Data<IdentityState>,
    caller: Caller,
    query: web::Query<SearchQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let paging = query
        .paging
        .resolve(SEARCH_LIMITS)
        .map_err(ApiError::validation)?;
    let only = visible_organisations(&caller);
    let name = query.name.filter(|n| !n.trim().is_empty());
    let (total, rows) = state
        .store
        .query(move |c| {
            organisations::search(
                c,
                only.as_deref(),
                name.as_deref(),
                paging.offset(),
                paging.limit(),
            )
        })
        .await?;
    let hits: Vec<_> = rows.iter().map(OrganisationItem::from).collect();
    Ok(HttpResponse::Ok().json(json!({ "summary": { "hits": total }, "hits": hits })))
}

pub(super) async fn get(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (organisation, accounts) =
        lookup::organisation_with_accounts(&state, &caller, &path).await?;
    Ok(HttpResponse::Ok().json(OrganisationDetail::new(&organisation, &accounts)))
}

pub(super) async fn addresses(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    attachments::list_addresses(&state, &caller, OwnerKind::Organisation, &path).await
}

pub(super) async fn address(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (owner, address) = path.into_inner();
    attachments::get_address(&state, &caller, OwnerKind::Organisation, &owner, &address).await
}

pub(super) async fn metadata(
    state: web::Data<IdentityState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    attachments::get_metadata(&state, &caller, OwnerKind::Organisation, &path).await
}
