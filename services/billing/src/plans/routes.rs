//! Subscription plans over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::IdempotencyKey;
use coffer_http::{ApiError, Json};
use serde::Deserialize;
use serde_json::Value;

use super::commands;
use crate::idempotent::Once;
use crate::state::BillingState;

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    organisation_uuid: Option<String>,
}

pub(crate) async fn list(
    state: web::Data<BillingState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let plans = commands::list(&state, &caller, query.organisation_uuid.as_deref()).await?;
    Ok(HttpResponse::Ok().json(plans))
}

pub(crate) async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &body.0);
    Ok(commands::create(&state, &caller, once, &body.0).await?)
}

pub(crate) async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::load(&state, &caller, &path).await?))
}

pub(crate) async fn update(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::update(&state, &caller, &path, &body.0).await?))
}
