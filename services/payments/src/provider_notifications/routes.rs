//! The endpoint a provider sends its notifications to, one per connector account. It takes
//! no token: the provider proves itself by the signature over the exact bytes it sent,
//! checked with that connector account's webhook secrets (commands.rs).

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, PathUuid, RawBody, RequestTrace, route};
use serde_json::json;

use super::commands;
use crate::payments::commands::ChargeBatches;
use crate::state::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    t.public(|t| {
        route!(t, stripe);
    });
}

/// A Stripe event as Stripe sends it; only what Coffer reads is described.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[schema(example = json!({
    "id": "evt_3QabcDEF", "object": "event", "type": "payment_intent.succeeded",
    "livemode": false, "created": 1798761600,
    "data": { "object": { "id": "pi_3QabcDEF", "object": "payment_intent", "status": "succeeded",
        "amount": 2500, "currency": "chf",
        "metadata": { "coffer_payment_uuid": "0b9b6a52-2f33-4d3c-9a53-6f3d1f0c8f11" } } }
}))]
#[allow(dead_code)] // described, never built: the handler checks the bytes before it reads them
pub(crate) struct StripeEvent {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    livemode: bool,
    #[schema(value_type = Object)]
    data: serde_json::Value,
}

/// A Stripe notification to a connector account (its endpoint URL as set in Stripe's
/// dashboard); signed with `Stripe-Signature`.
#[utoipa::path(post, path = "/provider-notifications/stripe/{connector_account_uuid}", operation_id = "receiveStripeNotification", tag = "Provider notifications",
    params(("connector_account_uuid" = uuid::Uuid, Path, description = "The connector account the endpoint was made for"),
        ("Stripe-Signature" = String, Header, description = "`t=<unix time>,v1=<hex HMAC-SHA256>`, made with the connector account's webhook secret")),
    request_body(content = StripeEvent, description = "A Stripe event, as Stripe sent it", content_type = "application/json"),
    responses((status = 200, description = "Received: applied, received before, or nothing to change"),
        (status = 400, description = "The signature does not verify, the event cannot be read, or the connector account has no webhook secret"),
        (status = 404, description = "No such connector account")))]
pub(crate) async fn stripe(
    (state, batches): (web::Data<PaymentsState>, web::Data<ChargeBatches>),
    req: HttpRequest,
    uuid: PathUuid,
    trace: RequestTrace,
    body: RawBody,
) -> Result<HttpResponse, ApiError> {
    let signature = req
        .headers()
        .get("Stripe-Signature")
        .and_then(|v| v.to_str().ok());
    let parts = (&state, &**batches);
    let received =
        commands::receive_stripe(parts, uuid.to_string(), signature, &body.0, &trace.0).await?;
    Ok(HttpResponse::Ok()
        .json(json!({ "received": received.as_str(), "outcome": received.label() })))
}
