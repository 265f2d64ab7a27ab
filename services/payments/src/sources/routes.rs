use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, Json, PathUuid, RequestTrace, Shape, route};
use serde_json::json;

use super::commands::{self, Keeping};
use crate::command_kit::Asker;
use crate::shared::card::keyed_for_idempotency;
use crate::shared::method::{Instrument, instrument_for, mandate_reference};
use crate::shared::owned_source;
use crate::shared::profile::Profile;
use crate::shared::profile_choice::account_and_profile;
use crate::shared::request::{Checked, PaymentRequest};
use crate::shared::supporter_request::supporter_of;
use crate::state::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, create);
    route!(t, get);
    // Shape C: SPEC.md shows every custom-parameter operation answering with a message,
    // as the payment's own do.
    t.shaped(Shape::C, |t| {
        route!(t, replace_parameters);
    });
}

/// Stores a donor's instrument so it can be charged again (the payment request's shape).
#[utoipa::path(post, path = "/payment-sources", operation_id = "createPaymentSource", tag = "Payment sources",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body = crate::shared::request::PaymentRequest,
    responses((status = 201, description = "The payment source", body = crate::shared::source::Source),
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
    let (organisation, profile) =
        account_and_profile(&state.store, &state.accounts, &caller, &checked).await?;
    let now = state.clock.now();
    let uuid = uuid::Uuid::new_v4().to_string();
    let (instrument, masked) = instrument_of(&state, &checked, &profile, now, &uuid)?;
    let supporter = supporter_of(&checked, &organisation, now.unix_timestamp())?;
    let asker = Asker {
        client_id: caller.client_id().to_owned(),
        key,
    };
    let keeping = Keeping {
        uuid,
        instrument,
        masked,
        supporter: supporter.created,
        named_supporter: supporter.named,
        organisation,
        account: checked.account.to_string(),
        profile,
        custom_parameters: checked.custom_parameters.clone(),
        return_url: checked.return_url.clone(),
        created: now.unix_timestamp(),
    };
    Ok(commands::keep(&state, asker, hash, trace.0, keeping).await?)
}

/// What is stored for the profile's method, and what of it may be shown. A direct debit
/// mandate gets its reference here: the donor's bank shows it beside every collection.
fn instrument_of(
    state: &PaymentsState,
    checked: &Checked,
    profile: &Profile,
    now: time::OffsetDateTime,
    source_uuid: &str,
) -> Result<(Instrument, serde_json::Value), ApiError> {
    let method = profile.payment_method;
    let Some((instrument, mut masked)) =
        instrument_for(method, checked, &state.fingerprint_key, now)?
    else {
        return Err(ApiError::invalid(
            "payment_method",
            format!("{method} cannot be stored as a payment source"),
        ));
    };
    if matches!(instrument, Instrument::SepaDirectDebit(_)) {
        masked["mandate_reference"] = json!(mandate_reference(source_uuid));
    }
    Ok((instrument, masked))
}

/// One payment source.
#[utoipa::path(get, path = "/payment-sources/{payment_source_uuid}", operation_id = "getPaymentSource", tag = "Payment sources",
    params(("payment_source_uuid" = uuid::Uuid, Path, description = "The payment source")),
    responses((status = 200, description = "The payment source", body = crate::shared::source::Source),
        (status = 404, description = "No such payment source")))]
pub(crate) async fn get(
    state: web::Data<PaymentsState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(owned_source::load(&state.store, &caller, uuid.to_string()).await?))
}

/// Replaces a payment source's custom parameters.
#[utoipa::path(put, path = "/payment-sources/{payment_source_uuid}/custom-parameters", operation_id = "replacePaymentSourceCustomParameters", tag = "Payment sources",
    params(("payment_source_uuid" = uuid::Uuid, Path, description = "The payment source")),
    request_body(content = Object, example = json!({"campaign": "spring"})),
    responses((status = 200, description = "The new custom parameters", body = Object),
        (status = 404, description = "No such payment source")))]
pub(crate) async fn replace_parameters(
    state: web::Data<PaymentsState>,
    caller: Caller,
    uuid: PathUuid,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    if !body.0.is_object() {
        return Err(ApiError::invalid(
            "custom_parameters",
            "must be a JSON object",
        ));
    }
    let uuid = uuid.to_string();
    let parameters = commands::replace_parameters(&state, &caller, uuid, body.0).await?;
    Ok(HttpResponse::Ok().json(parameters))
}
