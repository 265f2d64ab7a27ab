//! Subscriptions over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::IdempotencyKey;
use coffer_http::{ApiError, Json, OptionalJson, PathUuid, RequestTrace};
use serde::Deserialize;
use serde_json::Value;

use super::commands;
use crate::state::BillingState;
use coffer_http::idempotency::Once;

/// Starts charging a payment source on a schedule.
#[utoipa::path(post, path = "/subscriptions", operation_id = "createSubscription", tag = "Subscriptions",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = crate::subscriptions::domain::request::CreateBody),
    responses((status = 201, description = "The subscription", body = crate::subscriptions::domain::record::SubscriptionView),
        (status = 404, description = "No such account, plan, supporter or payment source"),
        (status = 409, description = "The Idempotency-Key was used with another body")))]
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

/// One subscription.
#[utoipa::path(get, path = "/subscriptions/{subscription_uuid}", operation_id = "getSubscription", tag = "Subscriptions",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    responses((status = 200, description = "The subscription", body = crate::subscriptions::domain::record::SubscriptionView),
        (status = 404, description = "No such subscription")))]
pub(crate) async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let body = commands::show(&state, &caller, uuid.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// Changes a subscription; a field left out is kept.
#[utoipa::path(patch, path = "/subscriptions/{subscription_uuid}", operation_id = "updateSubscription", tag = "Subscriptions",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    request_body(content = crate::subscriptions::domain::request::ChangeBody),
    responses((status = 200, description = "The subscription", body = crate::subscriptions::domain::record::SubscriptionView),
        (status = 404, description = "No such subscription"),
        (status = 409, description = "The subscription has ended")))]
pub(crate) async fn update(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
    trace: RequestTrace,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::update(&state, &caller, uuid.0, &body.0, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

// The body is read (and refused when malformed) as suspend reads it, though unused.
/// Activates a pending or suspended subscription.
#[utoipa::path(post, path = "/subscriptions/{subscription_uuid}/activate", operation_id = "activateSubscription", tag = "Subscriptions",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    request_body(content = Option<SuspendBody>, description = "Optional; read as suspend reads it", example = json!({})),
    responses((status = 200, description = "The subscription", body = crate::subscriptions::domain::record::SubscriptionView),
        (status = 404, description = "No such subscription"),
        (status = 409, description = "The subscription cannot be activated from its status")))]
pub(crate) async fn activate(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
    trace: RequestTrace,
    _body: OptionalJson<SuspendBody>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::activate(&state, &caller, uuid.0, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

// The body is read (and refused when malformed) as suspend reads it, though unused.
/// Cancels a subscription.
#[utoipa::path(post, path = "/subscriptions/{subscription_uuid}/cancel", operation_id = "cancelSubscription", tag = "Subscriptions",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    request_body(content = Option<SuspendBody>, description = "Optional; read as suspend reads it", example = json!({})),
    responses((status = 200, description = "The subscription", body = crate::subscriptions::domain::record::SubscriptionView),
        (status = 404, description = "No such subscription"),
        (status = 409, description = "The subscription has ended")))]
pub(crate) async fn cancel(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
    trace: RequestTrace,
    _body: OptionalJson<SuspendBody>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::cancel(&state, &caller, uuid.0, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// A suspension's dates (YYYY-MM-DD); without them, from today until activated.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"suspension_start": "2027-01-01", "suspension_end": "2027-03-31"}))]
pub(crate) struct SuspendBody {
    #[schema(format = Date)]
    suspension_start: Option<String>,
    #[schema(format = Date)]
    suspension_end: Option<String>,
}

/// Suspends a subscription, from today or between the dates given.
#[utoipa::path(post, path = "/subscriptions/{subscription_uuid}/suspend", operation_id = "suspendSubscription", tag = "Subscriptions",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    request_body(content = Option<SuspendBody>, description = "Optional"),
    responses((status = 200, description = "The subscription", body = crate::subscriptions::domain::record::SubscriptionView),
        (status = 404, description = "No such subscription"),
        (status = 409, description = "The subscription cannot be suspended from its status")))]
pub(crate) async fn suspend(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
    trace: RequestTrace,
    body: OptionalJson<SuspendBody>,
) -> Result<HttpResponse, ApiError> {
    let dates = (body.0.suspension_start, body.0.suspension_end);
    let body = commands::suspend(&state, &caller, uuid.0, dates, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// Subscriptions by the payment search's language (`$match`, `$term`, sorting, paging, aggregations).
#[utoipa::path(post, path = "/search/subscriptions", operation_id = "searchSubscriptions", tag = "Subscriptions",
    request_body(content = coffer_search::SearchRequest, example = json!({"query": {"$term": {"status": "active"}}, "size": 10})),
    responses((status = 200, description = "The matching objects, a page of them, and the aggregations", body = coffer_search::Found),
        (status = 429, description = "The organisation runs as many searches as it may at once and as many wait for a turn, or this one waited its whole time budget for a turn; see Retry-After")))]
pub(crate) async fn search(
    state: web::Data<BillingState>,
    caller: Caller,
    body: coffer_http::JsonEvenAsForm<Value>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::search(&state, &caller, body.0).await?))
}
