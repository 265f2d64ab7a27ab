//! Webhook endpoints over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::{IdempotencyKey, Once};
use coffer_http::{ApiError, Json, PathUuid};
use coffer_model::paging::PagingQuery;
use serde::Deserialize;
use serde_json::Value;

use super::commands;
use super::domain::EndpointView;
use crate::state::NotificationsState;

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    organisation_uuid: Option<String>,
    account_uuid: Option<String>,
    #[serde(flatten)]
    paging: PagingQuery,
}

/// The caller's webhook endpoints, oldest first: every one, unless `size` asks for a page.
/// An organisation has at most `max_endpoints_per_organisation` (100 by default).
#[utoipa::path(get, path = "/webhooks", operation_id = "listWebhookEndpoints", tag = "Webhooks",
    params(("organisation_uuid" = Option<String>, Query, pattern = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$", description = "The organisation's (a uuid). Left out or empty, the token's organisation where it reaches exactly one; a token reaching several must name it (400)"),
        ("account_uuid" = Option<String>, Query, pattern = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$", description = "Only this account's (a uuid; sent empty, it counts as left out)"),
        ("from" = Option<i64>, Query, minimum = 0, maximum = 4294967295_i64, description = "Endpoints to skip"),
        ("size" = Option<i64>, Query, minimum = 0, maximum = 1000, description = "At most this many; every one (from `from` on) when left out")),
    responses((status = 200, description = "The endpoints, without their keys", body = [EndpointView]),
        (status = 400, description = "A filter or paging value is not valid, or the token reaches several organisations and none is named")))]
pub(crate) async fn list(
    state: web::Data<NotificationsState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let found = commands::list(
        &state,
        &caller,
        q.organisation_uuid.as_deref(),
        q.account_uuid.as_deref(),
        &q.paging,
    )
    .await?;
    let items: Vec<EndpointView> = found.iter().map(|e| e.item()).collect();
    Ok(HttpResponse::Ok().json(items))
}

#[derive(Debug, Deserialize)]
pub(crate) struct CreateQuery {
    prevent_duplicates: Option<String>,
}

/// Registers an endpoint; `prevent_duplicates=true` answers the organisation's endpoint
/// for the same URL, when there is one, instead of making a second (200).
#[utoipa::path(post, path = "/webhooks", operation_id = "createWebhookEndpoint", tag = "Webhooks",
    params(("prevent_duplicates" = Option<bool>, Query, description = "Answer an existing endpoint of the same URL (200) instead of making another"),
        ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = super::domain::request::EndpointBody),
    responses((status = 201, description = "The endpoint, with its signing key", body = EndpointView),
        (status = 200, description = "With prevent_duplicates: the existing endpoint of the same URL", body = EndpointView),
        (status = 400, description = "A field is not valid, or the organisation has as many endpoints as it may (`organisation_uuid` is named)"),
        (status = 404, description = "No such account"),
        (status = 409, description = "The Idempotency-Key was used with another body, or its first request is still in progress")))]
pub(crate) async fn create(
    state: web::Data<NotificationsState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    query: web::Query<CreateQuery>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let prevent = match query.prevent_duplicates.as_deref() {
        None | Some("false" | "0") => false,
        Some("true" | "1" | "") => true,
        Some(_) => {
            return Err(ApiError::invalid(
                "prevent_duplicates",
                "must be true or false",
            ));
        }
    };
    let once = Once::of(&caller, key, &req, &body.0);
    Ok(commands::create(&state, &caller, once, &body.0, prevent).await?)
}

/// One webhook endpoint, with its signing key.
#[utoipa::path(get, path = "/webhooks/{webhook_uuid}", operation_id = "getWebhookEndpoint", tag = "Webhooks",
    params(("webhook_uuid" = uuid::Uuid, Path, description = "The endpoint")),
    responses((status = 200, description = "The endpoint", body = EndpointView),
        (status = 404, description = "No such endpoint")))]
pub(crate) async fn get(
    state: web::Data<NotificationsState>,
    caller: Caller,
    endpoint: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let endpoint = commands::show(&state, &caller, endpoint.into_inner()).await?;
    Ok(HttpResponse::Ok().json(endpoint.view()))
}

/// Replaces an endpoint: what the body leaves out is cleared, but the signing key, which
/// changes only when a new one is given.
#[utoipa::path(put, path = "/webhooks/{webhook_uuid}", operation_id = "replaceWebhookEndpoint", tag = "Webhooks",
    params(("webhook_uuid" = uuid::Uuid, Path, description = "The endpoint")),
    request_body(content = super::domain::request::EndpointBody),
    responses((status = 200, description = "The endpoint", body = EndpointView),
        (status = 404, description = "No such endpoint or account")))]
pub(crate) async fn replace(
    state: web::Data<NotificationsState>,
    caller: Caller,
    endpoint: PathUuid,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = commands::change(&state, &caller, endpoint.into_inner(), &body.0, true).await?;
    Ok(HttpResponse::Ok().json(endpoint.view()))
}

/// Changes an endpoint; a field left out is kept. `enabled: true` turns on an endpoint
/// Coffer turned off.
#[utoipa::path(patch, path = "/webhooks/{webhook_uuid}", operation_id = "updateWebhookEndpoint", tag = "Webhooks",
    params(("webhook_uuid" = uuid::Uuid, Path, description = "The endpoint")),
    request_body(content = super::domain::request::EndpointChange),
    responses((status = 200, description = "The endpoint", body = EndpointView),
        (status = 404, description = "No such endpoint or account")))]
pub(crate) async fn update(
    state: web::Data<NotificationsState>,
    caller: Caller,
    endpoint: PathUuid,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = commands::change(&state, &caller, endpoint.into_inner(), &body.0, false).await?;
    Ok(HttpResponse::Ok().json(endpoint.view()))
}

/// Removes an endpoint.
#[utoipa::path(delete, path = "/webhooks/{webhook_uuid}", operation_id = "deleteWebhookEndpoint", tag = "Webhooks",
    params(("webhook_uuid" = uuid::Uuid, Path, description = "The endpoint")),
    responses((status = 204, description = "Removed"),
        (status = 404, description = "No such endpoint")))]
pub(crate) async fn delete(
    state: web::Data<NotificationsState>,
    caller: Caller,
    endpoint: PathUuid,
) -> Result<HttpResponse, ApiError> {
    commands::delete(&state, &caller, endpoint.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
