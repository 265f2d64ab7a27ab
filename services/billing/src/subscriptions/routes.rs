//! Subscriptions over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::IdempotencyKey;
use coffer_http::{ApiError, Json, OptionalJson, RequestTrace};
use serde::Deserialize;
use serde_json::Value;

use super::commands;
use crate::idempotent::Once;
use crate::state::BillingState;

pub(crate) async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    trace: RequestTrace,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &body.0);
    Ok(commands::create(&state, &caller, once, &body.0, trace.0).await?)
}

pub(crate) async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::show(&state, &caller, &path).await?;
    Ok(HttpResponse::Ok().json(body))
}

pub(crate) async fn update(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::update(&state, &caller, &path, &body.0, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// The body is read (and refused when malformed) as suspend reads it, though unused.
pub(crate) async fn activate(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
    _body: OptionalJson<SuspendBody>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::activate(&state, &caller, &path, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// The body is read (and refused when malformed) as suspend reads it, though unused.
pub(crate) async fn cancel(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
    _body: OptionalJson<SuspendBody>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::cancel(&state, &caller, &path, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct SuspendBody {
    suspension_start: Option<String>,
    suspension_end: Option<String>,
}

pub(crate) async fn suspend(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
    body: OptionalJson<SuspendBody>,
) -> Result<HttpResponse, ApiError> {
    let dates = (body.0.suspension_start, body.0.suspension_end);
    let body = commands::suspend(&state, &caller, &path, dates, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// `POST /search/subscriptions`: the payment search's language over subscriptions.
pub(crate) async fn search(
    state: web::Data<BillingState>,
    caller: Caller,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::search(&state, &caller, body.0).await?))
}
