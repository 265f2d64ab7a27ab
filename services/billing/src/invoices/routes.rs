//! Invoices over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::IdempotencyKey;
use coffer_http::{ApiError, Json, OptionalJson, PathUuid, PathUuids, RequestTrace};
use serde_json::Value;

use super::commands;
use crate::state::BillingState;
use coffer_http::idempotency::Once;

/// A subscription's invoices.
#[utoipa::path(get, path = "/subscriptions/{subscription_uuid}/invoices", operation_id = "listInvoices", tag = "Invoices",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    responses((status = 200, description = "The invoices", body = [crate::invoices::domain::record::InvoiceView]),
        (status = 404, description = "No such subscription")))]
pub(crate) async fn list(
    state: web::Data<BillingState>,
    caller: Caller,
    subscription: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::list(&state, &caller, subscription.0).await?))
}

/// One invoice.
#[utoipa::path(get, path = "/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}", operation_id = "getInvoice", tag = "Invoices",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription"), ("invoice_uuid" = uuid::Uuid, Path, description = "The invoice")),
    responses((status = 200, description = "The invoice", body = crate::invoices::domain::record::InvoiceView),
        (status = 404, description = "No such subscription or invoice")))]
pub(crate) async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    uuids: PathUuids<2>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::show(&state, &caller, uuids.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// Invoices a subscription now, for its amount or the one given.
#[utoipa::path(post, path = "/subscriptions/{subscription_uuid}/invoices", operation_id = "createInvoice", tag = "Invoices",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription"), ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = Option<crate::invoices::domain::manual::ManualBody>, description = "Optional: without it, the subscription's amount"),
    responses((status = 201, description = "The invoice", body = crate::invoices::domain::record::InvoiceView),
        (status = 404, description = "No such subscription"),
        (status = 409, description = "The subscription cannot be invoiced, or the Idempotency-Key was used with another body")))]
pub(crate) async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    subscription: PathUuid,
    trace: RequestTrace,
    body: OptionalJson<Value>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &body.0);
    Ok(commands::create(&state, &caller, once, subscription.0, &body.0, trace.0).await?)
}

/// Closes an invoice by hand, as paid or not.
#[utoipa::path(post, path = "/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}/close", operation_id = "closeInvoice", tag = "Invoices",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription"), ("invoice_uuid" = uuid::Uuid, Path, description = "The invoice")),
    request_body(content = crate::invoices::domain::manual::CloseBody),
    responses((status = 200, description = "The invoice", body = crate::invoices::domain::record::InvoiceView),
        (status = 400, description = "The status is not paid or cancelled, the invoice is not open, or a charge attempt of it is pending"),
        (status = 404, description = "No such subscription or invoice")))]
pub(crate) async fn close(
    state: web::Data<BillingState>,
    caller: Caller,
    uuids: PathUuids<2>,
    trace: RequestTrace,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let body = commands::close(&state, &caller, uuids.0, &body.0, trace.0).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// Charges an open invoice again now.
#[utoipa::path(post, path = "/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}/charge-attempts", operation_id = "createChargeAttempt", tag = "Invoices",
    params(("subscription_uuid" = uuid::Uuid, Path, description = "The subscription"), ("invoice_uuid" = uuid::Uuid, Path, description = "The invoice"), ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    responses((status = 201, description = "The charge attempt", body = crate::invoices::domain::record::AttemptView),
        (status = 404, description = "No such subscription or invoice"),
        (status = 409, description = "The invoice is not open, or the Idempotency-Key was used with another body")))]
pub(crate) async fn charge(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    uuids: PathUuids<2>,
    trace: RequestTrace,
    // Nothing is read from it, but a body that is sent must be an object: `[]` or `"x"`
    // is a mistake, answered 400 before anything is charged.
    _body: OptionalJson<serde_json::Map<String, Value>>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &Value::Null);
    Ok(commands::charge(&state, &caller, once, uuids.0, trace.0).await?)
}
