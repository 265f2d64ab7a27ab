use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::{ApiError, Json, RequestTrace};
use coffer_model::ids::parse_uuid;
use coffer_model::money::Money;
use coffer_model::validation::FieldError;
use serde_json::json;

use super::commands::{self as source_commands, Keeping};
use super::store::{self, Source};
use crate::PaymentsState;
use crate::connectors::Instrument;
use crate::payments::commands::{self, Asker};
use crate::payments::intent::{
    account_and_profile, card_instrument, mandate_reference, sepa_information, supporter_of,
};
use crate::payments::record::ChargeState;
use crate::payments::request::{Checked, PaymentRequest};
use crate::profiles::store::Profile;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/payment-sources", web::post().to(create))
        .route("/payment-sources/{payment_source_uuid}", web::get().to(get))
        .route(
            "/payment-sources/{payment_source_uuid}/custom-parameters",
            web::put().to(replace_parameters),
        )
        .route(
            "/payment-sources/{payment_source_uuid}/charges",
            web::post().to(charge),
        );
}

async fn create(
    state: web::Data<PaymentsState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    trace: RequestTrace,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let hash = idempotency::request_hash(&req, &body.0);
    let request: PaymentRequest = parse_value(body.0)?;
    let checked = request.check().map_err(ApiError::validation)?;
    let (organisation, profile) = account_and_profile(&state, &caller, &checked).await?;
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
        supporter,
        organisation,
        account: checked.account.to_string(),
        profile,
        custom_parameters: checked.custom_parameters.clone(),
        return_url: checked.return_url.clone(),
        created: now.unix_timestamp(),
    };
    source_commands::keep(&state, asker, hash, trace.0, keeping).await
}

/// What is stored for the profile's method, and what of it may be shown. A direct debit
/// mandate gets its reference here: the donor's bank shows it beside every collection.
pub(crate) fn instrument_of(
    state: &PaymentsState,
    checked: &Checked,
    profile: &Profile,
    now: time::OffsetDateTime,
    source_uuid: &str,
) -> Result<(Instrument, serde_json::Value), ApiError> {
    Ok(match profile.payment_method.as_str() {
        "card" => card_instrument(state, checked, now)?,
        "twint" | "paypal" => (Instrument::Wallet, json!({})),
        "sepa_dd" => {
            let mut masked = sepa_information(checked.payment_information.as_ref())?;
            masked["mandate_reference"] = json!(mandate_reference(source_uuid));
            (Instrument::SepaDirectDebit, masked)
        }
        other => {
            return Err(ApiError::invalid(
                "payment_method",
                format!("{other} cannot be stored as a payment source"),
            ));
        }
    })
}

async fn load(state: &PaymentsState, caller: &Caller, raw: &str) -> Result<Source, ApiError> {
    let uuid = parse_uuid("payment_source_uuid", raw)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    let source = state
        .store
        .query(move |db| store::find(db, &uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Payment source"))?;
    caller.require_account(
        source.account_uuid.parse().map_err(ApiError::internal)?,
        source
            .organisation_uuid
            .parse()
            .map_err(ApiError::internal)?,
    )?;
    Ok(source)
}

async fn get(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(load(&state, &caller, &path).await?))
}

async fn replace_parameters(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    if !body.0.is_object() {
        return Err(ApiError::invalid(
            "custom_parameters",
            "must be a JSON object",
        ));
    }
    let source = load(&state, &caller, &path).await?;
    let (uuid, parameters, now) = (source.uuid, body.0, state.clock.unix());
    let stored = parameters.clone();
    state
        .store
        .query(move |db| store::set_custom_parameters(db, &uuid, &stored, now))
        .await?;
    Ok(HttpResponse::Ok().json(parameters))
}

/// Charges a stored source again. Only a platform caller may: billing charges a donor's
/// source for each invoice with its service token; a merchant's own token cannot.
async fn charge(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    if !caller.is_platform() {
        return Err(ApiError::forbidden());
    }
    let source = load(&state, &caller, &path).await?;
    if source.status != "active" {
        return Err(ApiError::conflict(format!(
            "the payment source is {}, not active",
            source.status
        )));
    }
    let amount = match body.0.get("amount") {
        Some(value) => Money::from_json("amount", value).map_err(ApiError::validation)?,
        None => return Err(ApiError::validation(vec![FieldError::not_null("amount")])),
    };
    if amount.value <= 0 {
        return Err(ApiError::invalid("amount.value", "must be above 0"));
    }
    let payment = super::charge::recharge(
        &state,
        &source,
        super::charge::Charge {
            amount,
            subscription_uuid: body
                .0
                .get("subscription_uuid")
                .and_then(|v| v.as_str())
                .map(str::to_owned),
            charge_attempt_uuid: None,
            custom_parameters: body
                .0
                .get("custom_parameters")
                .cloned()
                .filter(|v| v.is_object())
                .unwrap_or_else(|| json!({})),
        },
        ChargeState::Calling,
    );
    let body =
        commands::charge_again(&state, payment, &source.provider_reference, &trace.0).await?;
    Ok(HttpResponse::Created().json(body))
}
