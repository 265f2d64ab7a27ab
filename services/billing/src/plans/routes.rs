//! Subscription plans over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::IdempotencyKey;
use coffer_http::{ApiError, Json, PathUuid};
use serde::Deserialize;
use serde_json::Value;

use super::commands;
use crate::state::BillingState;
use coffer_http::idempotency::Once;

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    organisation_uuid: Option<String>,
}

/// The caller's subscription plans, the global default among them.
#[utoipa::path(get, path = "/subscription-plans", operation_id = "listSubscriptionPlans", tag = "Subscription plans",
    params(("organisation_uuid" = Option<uuid::Uuid>, Query, description = "Only this organisation's")),
    responses((status = 200, description = "The plans", body = [crate::plans::domain::Plan])))]
pub(crate) async fn list(
    state: web::Data<BillingState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let plans = commands::list(&state, &caller, query.organisation_uuid.as_deref()).await?;
    Ok(HttpResponse::Ok().json(plans))
}

/// Creates a subscription plan.
#[utoipa::path(post, path = "/subscription-plans", operation_id = "createSubscriptionPlan", tag = "Subscription plans",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = crate::plans::domain::PlanBody),
    responses((status = 201, description = "The plan", body = crate::plans::domain::Plan),
        (status = 404, description = "No such organisation or account"),
        (status = 409, description = "The Idempotency-Key was used with another body")))]
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

/// One subscription plan.
#[utoipa::path(get, path = "/subscription-plans/{plan_uuid}", operation_id = "getSubscriptionPlan", tag = "Subscription plans",
    params(("plan_uuid" = uuid::Uuid, Path, description = "The subscription plan")),
    responses((status = 200, description = "The plan", body = crate::plans::domain::Plan),
        (status = 404, description = "No such plan")))]
pub(crate) async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::load(&state, &caller, uuid.0).await?))
}

/// Changes a subscription plan; a field left out is kept.
#[utoipa::path(patch, path = "/subscription-plans/{plan_uuid}", operation_id = "updateSubscriptionPlan", tag = "Subscription plans",
    params(("plan_uuid" = uuid::Uuid, Path, description = "The subscription plan")),
    request_body(content = crate::plans::domain::PlanChangeBody),
    responses((status = 200, description = "The plan", body = crate::plans::domain::Plan),
        (status = 404, description = "No such plan")))]
pub(crate) async fn update(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::update(&state, &caller, uuid.0, &body.0).await?))
}
