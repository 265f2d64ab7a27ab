//! Organisations over HTTP (API.md, "Organisations"); their addresses and metadata are in
//! attachments/routes.rs.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::{ApiError, PathUuid};
use coffer_model::paging::{PagingLimits, PagingQuery};
use serde::{Deserialize, Serialize};

use super::cache::DirectoryCache;
use super::commands;
use super::views::{OrganisationDetail, OrganisationItem};
use crate::state::IdentityState;

/// A page of a search and the number of all matches.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct OrganisationHits<'a> {
    summary: Summary,
    hits: Vec<OrganisationItem<'a>>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct Summary {
    hits: i64,
}

const SEARCH_LIMITS: PagingLimits = PagingLimits::new(10, 500);

/// The organisations the caller may see.
#[utoipa::path(get, path = "/organisations", operation_id = "listOrganisations", tag = "Organisations",
    responses((status = 200, description = "The caller's organisations", body = [OrganisationItem])))]
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

/// Organisations by name, a page at a time (`from` 0 and up, `size` 1 to 500, 10 by default).
#[utoipa::path(get, path = "/search/organisations", operation_id = "searchOrganisations", tag = "Organisations", params(("name" = Option<String>, Query, description = "Part of the name, any case"),
        ("from" = Option<i64>, Query, minimum = 0, maximum = 4294967295_i64, description = "Matches to skip"),
        ("size" = Option<i64>, Query, minimum = 0, maximum = 500, description = "Matches to return")),
    responses((status = 200, description = "The page and the number of matches", body = OrganisationHits)))]
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
    Ok(HttpResponse::Ok().json(OrganisationHits {
        summary: Summary { hits: total },
        hits,
    }))
}

/// One organisation, with its accounts.
#[utoipa::path(get, path = "/organisations/{organisation_uuid}", operation_id = "getOrganisation", tag = "Organisations",
    params(("organisation_uuid" = uuid::Uuid, Path, description = "The organisation")),
    responses((status = 200, description = "The organisation", body = OrganisationDetail),
        (status = 404, description = "No such organisation")))]
pub(crate) async fn get(
    state: web::Data<IdentityState>,
    directory: web::Data<DirectoryCache>,
    caller: Caller,
    organisation: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let (organisation, accounts) =
        commands::get(&state, &directory, &caller, organisation.into_inner()).await?;
    Ok(HttpResponse::Ok().json(OrganisationDetail::new(&organisation, &accounts)))
}
