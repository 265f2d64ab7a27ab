//! Invoices over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::IdempotencyKey;
use coffer_http::{ApiError, Json, OptionalJson, RequestTrace};
use serde_json::Value;

use super::commands;
use crate::idempotent::Once;
use crate::state::BillingState;

pub(crate) async fn list(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::list(&state, &caller, &path).await?))
}

pub(crate) async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::show(&state, &caller, (&path.0, &path.1)).await?;
    Ok(HttpResponse::Ok().json(body))
}

pub(crate) async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    path: web::Path<String>,
    trace: RequestTrace,
    body: OptionalJson<Value>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &body.0);
    Ok(commands::create(&state, &caller, once, &path, &body.0, trace.0).await?)
}

pub(crate) async fn close(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    trace: RequestTrace,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::close(&state, &caller, (&path.0, &path.1), &body.0, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

pub(crate) async fn charge(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    path: web::Path<(String, String)>,
    trace: RequestTrace,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &Value::Null);
    Ok(commands::charge(&state, &caller, once, (&path.0, &path.1), trace.0).await?)
}
