//! Test clocks over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::idempotency::IdempotencyKey;
use coffer_http::{ApiError, Json, PathUuid, RequestTrace};
use serde::Deserialize;
use serde_json::Value;

use super::commands;
use crate::state::BillingState;
use coffer_http::idempotency::Once;

/// The create body; a property of the wrong type is a 400 naming it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub(crate) struct ClockRequest {
    /// Unix seconds, 0 to the end of 2199.
    #[schema(minimum = 0, maximum = 7258118399_i64)]
    frozen_time: Option<i64>,
    /// The clock's organisation, when the caller has more than one.
    #[schema(value_type = Option<uuid::Uuid>)]
    organisation_uuid: Option<String>,
}

/// The advance body: the clock's organisation is its own, so only the time is read.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub(crate) struct AdvanceRequest {
    /// Unix seconds, later than the clock's time and at most the end of 2199.
    #[schema(minimum = 0, maximum = 7258118399_i64)]
    frozen_time: Option<i64>,
}

/// Creates a test clock at `frozen_time`.
#[utoipa::path(post, path = "/test-clocks", operation_id = "createTestClock", tag = "Test clocks",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = ClockRequest, example = json!({"frozen_time": 1798761600})),
    responses((status = 201, description = "The test clock", body = crate::test_clocks::domain::TestClock),
        (status = 409, description = "The Idempotency-Key was used with another body")))]
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

/// One test clock.
#[utoipa::path(get, path = "/test-clocks/{test_clock_uuid}", operation_id = "getTestClock", tag = "Test clocks",
    params(("test_clock_uuid" = uuid::Uuid, Path, description = "The test clock")),
    responses((status = 200, description = "The test clock", body = crate::test_clocks::domain::TestClock),
        (status = 404, description = "No such test clock")))]
pub(crate) async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::load(&state, &caller, uuid.0).await?))
}

/// Deletes the clock, stops an advance under way, and cancels the subscriptions on it.
#[utoipa::path(delete, path = "/test-clocks/{test_clock_uuid}", operation_id = "deleteTestClock", tag = "Test clocks",
    params(("test_clock_uuid" = uuid::Uuid, Path, description = "The test clock")),
    responses((status = 204, description = "Deleted"),
        (status = 404, description = "No such test clock")))]
pub(crate) async fn delete(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
    trace: RequestTrace,
) -> Result<HttpResponse, ApiError> {
    commands::delete(&state, &caller, uuid.0, trace.0).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Starts moving the clock forward to `frozen_time` and answers at once with status
/// `advancing`; GET shows `ready` at the new time when everything due on the way has happened.
#[utoipa::path(post, path = "/test-clocks/{test_clock_uuid}/advance", operation_id = "advanceTestClock", tag = "Test clocks",
    params(("test_clock_uuid" = uuid::Uuid, Path, description = "The test clock")),
    request_body(content = AdvanceRequest, example = json!({"frozen_time": 1801440000})),
    responses((status = 200, description = "The test clock", body = crate::test_clocks::domain::TestClock),
        (status = 404, description = "No such test clock"),
        (status = 409, description = "The clock is advancing already, or the time is not later")))]
pub(crate) async fn advance(
    state: web::Data<BillingState>,
    caller: Caller,
    uuid: PathUuid,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let request: AdvanceRequest = parse_value(body.0)?;
    let clock = commands::advance(&state, &caller, uuid.0, request.frozen_time).await?;
    Ok(HttpResponse::Ok().json(clock))
}
