//! Refunds' operation: create one.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, OptionalJson, PathUuid, RequestTrace, route};
use coffer_model::money::Money;
use coffer_model::validation::FieldError;

use super::commands;
use crate::command_kit::Asker;
use crate::state::PaymentsState;

/// A refund's amount; left out, the residual.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"amount": {"value": "500", "currency": "CHF"}}))]
#[allow(dead_code)]
pub(crate) struct RefundRequest {
    amount: Option<coffer_model::money::Money>,
}

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, create);
}

/// Refunds a payment: `amount`, or without a body the whole residual.
#[utoipa::path(post, path = "/payments/{payment_uuid}/refunds", operation_id = "createRefund", tag = "Payments",
    params(("payment_uuid" = uuid::Uuid, Path, description = "The payment"), ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = Option<RefundRequest>, description = "Optional: no body refunds the residual"),
    responses((status = 200, description = "The refund", body = crate::shared::record::Refund),
        (status = 404, description = "No such payment"),
        (status = 409, description = "Nothing left to refund, or the Idempotency-Key was used with another body")))]
pub(crate) async fn create(
    state: web::Data<PaymentsState>,
    caller: Caller,
    req: HttpRequest,
    uuid: PathUuid,
    key: IdempotencyKey,
    trace: RequestTrace,
    body: OptionalJson<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let uuid = uuid.to_string();
    // No body at all refunds the residual; a body that was sent must say so itself, so a
    // request whose amount was lost on the way is refused rather than refunding everything.
    // The same holds for a property that is not `amount` (a misspelt `amont`): refused,
    // each named, beside what is wrong with the amount.
    let body = body.0;
    let hash = idempotency::request_hash(&req, &body);
    let mut wrong: Vec<FieldError> = body
        .as_object()
        .into_iter()
        .flat_map(|object| object.keys())
        .filter(|name| name.as_str() != "amount")
        .map(|name| {
            FieldError::not_valid(
                name.as_str(),
                format!("unknown field `{name}`, expected `amount`"),
            )
        })
        .collect();
    let requested = match body.get("amount") {
        None => None,
        Some(serde_json::Value::Null) => {
            wrong.push(FieldError::not_valid(
                "amount",
                "must be an amount; leave it out to refund the residual",
            ));
            None
        }
        Some(value) => match Money::from_json("amount", value) {
            Ok(money) => Some(money),
            Err(errors) => {
                wrong.extend(errors);
                None
            }
        },
    };
    if !wrong.is_empty() {
        return Err(ApiError::validation(wrong));
    }
    let asker = Asker {
        client_id: caller.client_id().to_owned(),
        key,
    };
    Ok(commands::refund(&state, caller, asker, hash, trace.0, uuid, requested).await?)
}
