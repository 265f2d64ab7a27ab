//! Test clocks over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::idempotency::IdempotencyKey;
use coffer_http::{ApiError, Json, RequestTrace};
use serde::Deserialize;
use serde_json::Value;

use super::commands;
use crate::idempotent::Once;
use crate::state::BillingState;

/// Create and advance bodies; a property of the wrong type is a 400 naming it.
#[derive(Debug, Deserialize)]
struct ClockRequest {
    frozen_time: Option<i64>,
    organisation_uuid: Option<String>,
}

pub(crate) async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &body.0);
    let request: ClockRequest = parse_value(body.0)?;
    let (time, organisation) = (request.frozen_time, request.organisation_uuid);
    Ok(commands::create(&state, &caller, once, time, organisation).await?)
}

pub(crate) async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::load(&state, &caller, &path).await?))
}

/// Deletes the clock, stops an advance under way, and cancels the subscriptions on it.
pub(crate) async fn delete(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
) -> Result<HttpResponse, ApiError> {
    commands::delete(&state, &caller, &path, trace.0).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Starts moving the clock to `frozen_time` and answers at once with status `advancing`;
/// GET shows `ready` at the new time when everything due on the way has happened.
pub(crate) async fn advance(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let request: ClockRequest = parse_value(body.0)?;
    let clock = commands::advance(&state, &caller, &path, request.frozen_time).await?;
    Ok(HttpResponse::Ok().json(clock))
}
