//! Changes to an existing payment: cancel, and its custom parameters.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, Json, OptionalJson, RequestTrace, Shape};
use coffer_model::ids::parse_uuid;
use serde::Deserialize;

use super::commands;
use crate::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    // Shape C: SPEC.md shows these operations answering with a message.
    t.shaped(Shape::C, |t| {
        t.post("/payments/{payment_uuid}/cancel", cancel)
            .put(
                "/payments/{payment_uuid}/custom-parameters",
                replace_parameters,
            )
            .patch(
                "/payments/{payment_uuid}/custom-parameters",
                patch_parameters,
            );
    });
}

fn payment_uuid(raw: &str) -> Result<String, ApiError> {
    parse_uuid("payment_uuid", raw)
        .map(|u| u.to_string())
        .map_err(|e| ApiError::validation(vec![e]))
}

/// The longest cancellation reason kept, in characters.
const MAX_REASON: usize = 1_000;

/// Why a payment is cancelled; no body cancels without a reason.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"reason": "The donor changed their mind"}))]
pub(crate) struct CancelRequest {
    /// At most 1,000 characters.
    #[schema(max_length = 1000)]
    reason: Option<String>,
}

/// Cancels a payment that has not succeeded yet.
#[utoipa::path(post, path = "/payments/{payment_uuid}/cancel", operation_id = "cancelPayment", tag = "Payments",
    params(("payment_uuid" = uuid::Uuid, Path, description = "The payment")),
    request_body(content = Option<CancelRequest>, description = "Optional"),
    responses((status = 200, description = "The cancelled payment", body = crate::shared::record::Payment),
        (status = 404, description = "No such payment"),
        (status = 409, description = "The payment can no longer be cancelled")))]
pub(crate) async fn cancel(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
    body: OptionalJson<CancelRequest>,
) -> Result<HttpResponse, ApiError> {
    let uuid = payment_uuid(&path)?;
    let reason = body.0.reason;
    if reason
        .as_ref()
        .is_some_and(|r| r.chars().count() > MAX_REASON)
    {
        return Err(ApiError::invalid(
            "reason",
            format!("must be at most {MAX_REASON} characters"),
        ));
    }
    let payment = commands::changes::cancel(&state, caller, uuid, reason, trace.0).await?;
    Ok(HttpResponse::Ok().json(payment))
}

fn object(
    value: serde_json::Value,
) -> Result<serde_json::Map<String, serde_json::Value>, ApiError> {
    match value {
        serde_json::Value::Object(map) => Ok(map),
        _ => Err(ApiError::invalid(
            "custom_parameters",
            "must be a JSON object",
        )),
    }
}

async fn change_parameters(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    body: serde_json::Value,
    merge: bool,
) -> Result<HttpResponse, ApiError> {
    let uuid = payment_uuid(&path)?;
    let incoming = object(body)?;
    let parameters =
        commands::changes::change_parameters(&state, caller, uuid, incoming, merge).await?;
    Ok(HttpResponse::Ok().json(parameters))
}

/// Replaces a payment's custom parameters.
#[utoipa::path(put, path = "/payments/{payment_uuid}/custom-parameters", operation_id = "replacePaymentCustomParameters", tag = "Payments",
    params(("payment_uuid" = uuid::Uuid, Path, description = "The payment")),
    request_body(content = Object, example = json!({"campaign": "spring"})),
    responses((status = 200, description = "The new custom parameters", body = Object),
        (status = 404, description = "No such payment")))]
pub(crate) async fn replace_parameters(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    change_parameters(state, caller, path, body.0, false).await
}

/// Merges parameters into a payment's custom parameters (a null removes one).
#[utoipa::path(patch, path = "/payments/{payment_uuid}/custom-parameters", operation_id = "patchPaymentCustomParameters", tag = "Payments",
    params(("payment_uuid" = uuid::Uuid, Path, description = "The payment")),
    request_body(content = Object, example = json!({"campaign": "spring"})),
    responses((status = 200, description = "The new custom parameters", body = Object),
        (status = 404, description = "No such payment")))]
pub(crate) async fn patch_parameters(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    change_parameters(state, caller, path, body.0, true).await
}
