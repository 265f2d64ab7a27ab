//! Payments' operations: initialise and read a payment, cancel it, change its custom
//! parameters; and the test provider's pages, where a donor is sent when a payment needs
//! their approval (3-D Secure, TWINT, PayPal) or a payment source their agreement: Approve
//! or Decline finishes the payment (and a source it creates) or the source, and sends the
//! donor on to the merchant's `return_url`. Real providers host such pages themselves.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, Json, OptionalJson, PathUuid, RequestTrace, Shape, route};
use serde::Deserialize;

use super::commands::test_psp::{self, Next, Subject};
use super::commands::{self, ChargeBatches, PaymentReads};
use super::domain::Decision;
use crate::command_kit::Asker;
use crate::shared::card::keyed_for_idempotency;
use crate::shared::request::PaymentRequest;
use crate::state::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, create);
    route!(t, get);
    // A payment made by charging a stored source again.
    route!(t, charge_source);
    // Shape C: SPEC.md shows these operations answering with a message.
    t.shaped(Shape::C, |t| {
        route!(t, cancel);
        route!(t, replace_parameters);
        route!(t, patch_parameters);
    });
    // The donor's side of the test provider: a page a browser opens, not the API.
    t.hidden(|t| {
        t.public(|t| {
            // A route for each decision, so the path's one parameter is the uuid.
            t.get("/test-psp/3ds/{payment_uuid}", page)
                .post("/test-psp/3ds/{payment_uuid}/approve", approve)
                .post("/test-psp/3ds/{payment_uuid}/decline", decline);
        })
        .post("/test-psp/sepa/{payment_uuid}/settle", settle);
    });
}

/// Charges a donor now, or starts a payment that waits for them (`action`).
#[utoipa::path(post, path = "/payments", operation_id = "createPayment", tag = "Payments",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body = PaymentRequest,
    responses((status = 201, description = "The payment", body = crate::shared::record::Payment),
        (status = 404, description = "No such account, profile or supporter"),
        (status = 409, description = "The Idempotency-Key was used with another body, or its first request is still in progress")))]
pub(crate) async fn create(
    (state, batches): (web::Data<PaymentsState>, web::Data<ChargeBatches>),
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
    let asker = Asker {
        client_id: caller.client_id().to_owned(),
        key,
    };
    let parts = (&state, &**batches);
    Ok(commands::initiate(parts, &caller, asker, (hash, trace.0), checked).await?)
}

/// One payment.
#[utoipa::path(get, path = "/payments/{payment_uuid}", operation_id = "getPayment", tag = "Payments",
    params(("payment_uuid" = uuid::Uuid, Path, description = "The payment")),
    responses((status = 200, description = "The payment", body = crate::shared::record::Payment),
        (status = 404, description = "No such payment")))]
pub(crate) async fn get(
    reads: web::Data<PaymentReads>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(commands::load(&reads, &caller, uuid.to_string()).await?))
}

// Only a platform caller may: billing charges a donor's source for each invoice with its
// service token; a merchant's own token cannot.
/// Charges a stored source again (billing's service token only: `amount`, `charge_attempt_uuid`).
#[utoipa::path(post, path = "/payment-sources/{payment_source_uuid}/charges", operation_id = "chargePaymentSource", tag = "Payment sources",
    params(("payment_source_uuid" = uuid::Uuid, Path, description = "The payment source"),
        ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = crate::payments::domain::ChargeBody),
    responses((status = 201, description = "The payment", body = crate::shared::record::Payment),
        (status = 404, description = "No such payment source"),
        (status = 409, description = "The source cannot be charged (pending, failed or revoked), or the Idempotency-Key was used with another body")))]
pub(crate) async fn charge_source(
    (state, batches): (web::Data<PaymentsState>, web::Data<ChargeBatches>),
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    uuid: PathUuid,
    trace: RequestTrace,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    if !caller.is_platform() {
        return Err(ApiError::forbidden());
    }
    let uuid = uuid.to_string();
    let hash = idempotency::request_hash(&req, &body.0);
    let parts = (&state, &**batches);
    Ok(commands::charge_source(parts, &caller, key, hash, (uuid, &body.0), &trace.0).await?)
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
    uuid: PathUuid,
    trace: RequestTrace,
    body: OptionalJson<CancelRequest>,
) -> Result<HttpResponse, ApiError> {
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
    let payment =
        commands::changes::cancel(&state, caller, uuid.to_string(), reason, trace.0).await?;
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
    uuid: PathUuid,
    body: serde_json::Value,
    merge: bool,
) -> Result<HttpResponse, ApiError> {
    let incoming = object(body)?;
    let uuid = uuid.to_string();
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
    uuid: PathUuid,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    change_parameters(state, caller, uuid, body.0, false).await
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
    uuid: PathUuid,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    change_parameters(state, caller, uuid, body.0, true).await
}

// The test provider's pages.

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page of a payment or source: Approve and Decline while it waits, its status after.
fn render(subject: &Subject) -> HttpResponse {
    let pending = subject.awaits_donor();
    let (uuid, status, heading, what, noun) = match subject {
        Subject::Payment(p) => (
            &p.uuid,
            p.status.as_str(),
            "Confirm your payment",
            format!(
                "{} {} by {}",
                p.amount.to_major_string(),
                p.amount.currency.code(),
                p.payment_method
            ),
            "payment",
        ),
        Subject::Source(s) => (
            &s.uuid,
            s.status.as_str(),
            "Allow later donations",
            format!("Keep your {} for later donations", s.payment_method),
            "payment source",
        ),
    };
    let body = if pending {
        format!(
            r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Coffer test payment</title></head>
<body><h1>{heading}</h1>
<p>{what} (Coffer test provider)</p>
<form method="post" action="/test-psp/3ds/{uuid}/approve"><button type="submit" id="approve">Approve</button></form>
<form method="post" action="/test-psp/3ds/{uuid}/decline"><button type="submit" id="decline">Decline</button></form>
</body></html>"#,
            what = escape(&what),
        )
    } else {
        format!(
            r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Coffer test payment</title></head>
<body><h1>This {noun} is {status}</h1></body></html>"#,
            status = escape(status)
        )
    };
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(body)
}

async fn page(state: web::Data<PaymentsState>, uuid: PathUuid) -> Result<HttpResponse, ApiError> {
    Ok(render(&test_psp::subject(&state, uuid.to_string()).await?))
}

async fn approve(
    state: web::Data<PaymentsState>,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    decide(&state, uuid, Decision::Approve).await
}

async fn decline(
    state: web::Data<PaymentsState>,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    decide(&state, uuid, Decision::Decline).await
}

async fn decide(
    state: &web::Data<PaymentsState>,
    uuid: PathUuid,
    decision: Decision,
) -> Result<HttpResponse, ApiError> {
    Ok(
        match test_psp::decide(state, uuid.to_string(), decision).await? {
            Next::Back(location) => HttpResponse::SeeOther()
                .insert_header((header::LOCATION, location))
                .finish(),
            Next::Page(subject) => render(&subject),
        },
    )
}

/// Test mode only: the bank has collected a direct debit.
async fn settle(
    state: web::Data<PaymentsState>,
    caller: Caller,
    uuid: PathUuid,
    trace: RequestTrace,
) -> Result<HttpResponse, ApiError> {
    let payment = test_psp::settle_debit(&state, &caller, uuid.to_string(), trace.0).await?;
    Ok(HttpResponse::Ok().json(payment))
}
