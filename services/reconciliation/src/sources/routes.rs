use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::{IdempotencyKey, Once};
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, Json, PathUuid, route};

use super::commands;
use super::domain::SourceRequest;
use crate::fields::read_checked;
use crate::lists::ListQuery;
use crate::state::ReconciliationState;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, list);
    route!(t, create);
    route!(t, get);
}

/// Names where bank files come from and the blueprint that processes them.
#[utoipa::path(post, path = "/reconciliation/sources", operation_id = "createReconciliationSource", tag = "Reconciliation",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = SourceRequest, example = json!({"name": "Statements from the bank", "organisation_uuid": "5a0e9d0c-6f0b-4f0c-9c55-0b9f1d8e3a21", "account_uuid": "0b7c4b1e-2f7d-4a51-9d0e-0d3c1f0e6a11", "type": "api_upload", "blueprint_uuid": "7f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f"})),
    responses((status = 201, description = "The source", body = super::store::Source),
        (status = 404, description = "No such account in the organisation"),
        (status = 409, description = "The Idempotency-Key was used with another body, or its first request is still in progress")))]
pub(crate) async fn create(
    state: web::Data<ReconciliationState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &body.0);
    // serde reads a struct from an array too; `sftp` must be an object.
    if body
        .0
        .get("sftp")
        .is_some_and(|s| !s.is_object() && !s.is_null())
    {
        return Err(ApiError::invalid("sftp", "must be an object"));
    }
    let input = read_checked(body.0, SourceRequest::check)?;
    Ok(commands::create(&state, &caller, once, input).await?)
}

/// The sources of the caller's accounts, newest first.
#[utoipa::path(get, path = "/reconciliation/sources", operation_id = "listReconciliationSources", tag = "Reconciliation",
    params(ListQuery),
    responses((status = 200, description = "The sources", body = [super::store::Source]),
        (status = 404, description = "No such account")))]
pub(crate) async fn list(
    state: web::Data<ReconciliationState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let (account, paging) = query.into_inner().resolve()?;
    Ok(HttpResponse::Ok().json(commands::list(&state, &caller, account, paging).await?))
}

/// One source.
#[utoipa::path(get, path = "/reconciliation/sources/{source_uuid}", operation_id = "getReconciliationSource", tag = "Reconciliation",
    params(("source_uuid" = uuid::Uuid, Path, description = "The source")),
    responses((status = 200, description = "The source", body = super::store::Source),
        (status = 404, description = "No such source")))]
pub(crate) async fn get(
    state: web::Data<ReconciliationState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let uuid = uuid.to_string();
    Ok(HttpResponse::Ok().json(commands::get(&state, &caller, uuid).await?))
}
