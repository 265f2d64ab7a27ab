use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, Json, RequestTrace};
use coffer_model::ids::parse_uuid;

use super::commands;
use super::intent;
use super::request::PaymentRequest;
use crate::PaymentsState;
use crate::command_kit::Asker;
use crate::shared::card::keyed_for_idempotency;

pub(crate) fn routes(t: &mut RouteTable) {
    t.post("/payments", create)
        .get("/payments/{payment_uuid}", get);
}

/// Charges a donor now, or starts a payment that waits for them (`action`).
#[utoipa::path(post, path = "/payments", operation_id = "createPayment", tag = "Payments",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body = PaymentRequest,
    responses((status = 201, description = "The payment", body = crate::shared::record::Payment),
        (status = 404, description = "No such account, profile or supporter"),
        (status = 409, description = "The Idempotency-Key was used with another body, or its first request is still in progress")))]
pub(crate) async fn create(
    state: web::Data<PaymentsState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    trace: RequestTrace,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let hash = idempotency::request_hash(
        &req,
        &keyed_for_idempotency(&body.0, &state.fingerprint_key),
    );
    let request: PaymentRequest = parse_value(body.0)?;
    let checked = request.check().map_err(ApiError::validation)?;
    let intent = intent::prepare(&state, &caller, checked).await?;
    let asker = Asker {
        client_id: caller.client_id().to_owned(),
        key,
    };
    commands::initiate(&state, asker, hash, trace.0, intent).await
}

/// One payment.
#[utoipa::path(get, path = "/payments/{payment_uuid}", operation_id = "getPayment", tag = "Payments",
    params(("payment_uuid" = uuid::Uuid, Path, description = "The payment")),
    responses((status = 200, description = "The payment", body = crate::shared::record::Payment),
        (status = 404, description = "No such payment")))]
pub(crate) async fn get(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = parse_uuid("payment_uuid", &path)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    Ok(HttpResponse::Ok().json(commands::load(&state, &caller, id).await?))
}
