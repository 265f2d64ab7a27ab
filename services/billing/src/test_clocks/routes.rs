//! Test clocks over HTTP: read the request, call one command, render.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::{ApiError, Failure, Json, RequestTrace};
use coffer_model::ids::parse_uuid;
use serde::Deserialize;
use serde_json::{Value, json};

use super::commands;
use super::store::TestClock;
use crate::BillingState;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/test-clocks", web::post().to(create))
        .route("/test-clocks/{test_clock_uuid}", web::get().to(get))
        .route("/test-clocks/{test_clock_uuid}", web::delete().to(delete))
        .route(
            "/test-clocks/{test_clock_uuid}/advance",
            web::post().to(advance_to),
        );
}

/// Create and advance bodies; a property of the wrong type is a 400 naming it.
#[derive(Debug, Deserialize)]
struct ClockRequest {
    frozen_time: Option<i64>,
    organisation_uuid: Option<String>,
}

fn clock_uuid(raw: &str) -> Result<String, ApiError> {
    parse_uuid("test_clock_uuid", raw)
        .map(|u| u.to_string())
        .map_err(|e| ApiError::validation(vec![e]))
}

async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let hash = idempotency::request_hash(&req, &body.0);
    let request: ClockRequest = parse_value(body.0)?;
    let time = commands::frozen_time(request.frozen_time)?;
    let named = request
        .organisation_uuid
        .map(|raw| parse_uuid("organisation_uuid", &raw).map_err(|e| ApiError::validation(vec![e])))
        .transpose()?;
    let clock = commands::draft(&caller, named, time, state.clock.unix())?;
    idempotency::run(
        &state.store,
        state.clock.as_ref(),
        caller.client_id(),
        key,
        hash,
        move |tx| {
            commands::create(tx, &clock)?;
            Ok::<_, Failure>((StatusCode::CREATED, json!(clock)))
        },
    )
    .await
}

async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let clock: TestClock = commands::load(&state, &caller, &clock_uuid(&path)?).await?;
    Ok(HttpResponse::Ok().json(clock))
}

/// Deletes the clock, stops an advance under way, and cancels the subscriptions on it.
async fn delete(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
) -> Result<HttpResponse, ApiError> {
    commands::delete(state.into_inner(), &caller, &clock_uuid(&path)?, &trace.0).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Starts moving the clock to `frozen_time` and answers at once with status `advancing`;
/// GET shows `ready` at the new time when everything due on the way has happened.
async fn advance_to(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let request: ClockRequest = parse_value(body.0)?;
    let target = commands::frozen_time(request.frozen_time)?;
    let clock = commands::advance(&state, &caller, &clock_uuid(&path)?, target).await?;
    Ok(HttpResponse::Ok().json(clock))
}
