use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_events::append;
use coffer_events::catalogue::{PAYMENT_SOURCE_CREATED, PAYMENT_SOURCE_FAILED, SUPPORTER_CREATED};
use coffer_http::body::parse_value;
use coffer_http::idempotency::{self, IdempotencyKey, Reservation};
use coffer_http::{ApiError, Json, RequestTrace};
use coffer_model::ids::parse_uuid;
use coffer_model::money::Money;
use coffer_model::validation::FieldError;
use serde_json::json;

use super::store::{self, Source};
use crate::PaymentsState;
use crate::connectors::{Instrument, StoreOutcome};
use crate::failure::{Failure, internal};
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
    // The key is reserved before the provider is asked, so a retried request never keeps
    // the instrument a second time.
    let source_uuid = uuid.clone();
    let reserved = idempotency::reserve(
        &state.store,
        state.clock.as_ref(),
        &asker.client_id,
        &asker.key,
        hash,
        move |_| Ok::<_, Failure>(source_uuid.clone()),
        |uuid: &String| json!({ "payment_source_uuid": uuid }),
    )
    .await?;
    match reserved {
        Reservation::Fresh(_) => {}
        Reservation::Replay(response) => return Ok(response),
        Reservation::InProgress(marker) => {
            let id = marker["payment_source_uuid"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            return match state.store.query(move |db| store::find(db, &id)).await? {
                Some(source) => Ok(HttpResponse::Created().json(source)),
                None => Err(ApiError::conflict(
                    "A request with this Idempotency-Key is in progress",
                )),
            };
        }
    }
    state.outbox.committed();
    // Keeping an instrument is a provider call, made outside any transaction under the
    // source's uuid; a lost answer keeps nothing here and the key stays in progress.
    let kept = match commands::within(&state, state.connector.store_instrument(&instrument, &uuid))
        .await
    {
        Ok(kept) => kept,
        Err(e) => {
            // Nothing is recorded, so the key is given back: the client may retry with it.
            // No money moves in keeping an instrument; at worst the provider keeps one that
            // Coffer never names.
            tracing::warn!(error = %e, "keeping a payment source: the provider did not answer");
            let (client, key) = (asker.client_id.clone(), asker.key.clone());
            state
                .store
                .write(move |tx| idempotency::release(tx, &client, &key).map_err(Failure::from))
                .await
                .map_err(ApiError::from)?;
            return Err(ApiError::unavailable(
                "The payment provider did not answer; nothing was kept",
            ));
        }
    };
    let (status, reason, reference, action) = match kept {
        StoreOutcome::Active { reference } => ("active", None, reference, None),
        StoreOutcome::Pending {
            reference,
            redirect,
        } => (
            "pending",
            None,
            reference,
            Some(json!({ "type": "redirect", "url": redirect })),
        ),
        StoreOutcome::Failed { reason } => ("failed", Some(reason), String::new(), None),
    };
    drop(instrument);
    let source = Source {
        uuid,
        created: now.unix_timestamp(),
        organisation_uuid: organisation,
        account_uuid: checked.account.to_string(),
        test_mode: profile.test_mode,
        payment_method: profile.payment_method.clone(),
        profile: profile.name.clone(),
        payment_provider: profile.provider.clone(),
        provider_reference: reference,
        status: status.to_owned(),
        status_reason: reason,
        payment_information: masked,
        supporter_uuid: supporter.as_ref().map(|s| s.uuid.clone()),
        custom_parameters: checked.custom_parameters.clone(),
        action,
        return_url: checked.return_url.clone(),
    };
    let st = state.clone();
    let body = state
        .store
        .write(move |tx| {
            if let Some(s) = &supporter {
                crate::supporters::store::insert(tx, s)?;
                let event = st.outbox.event(
                    &SUPPORTER_CREATED,
                    s.uuid.parse().map_err(internal)?,
                    source.organisation_uuid.parse().ok(),
                    None,
                    serde_json::to_value(s).map_err(internal)?,
                );
                append(tx, &[event], Some(&trace.0))?;
            }
            store::insert(tx, &source)?;
            let body = serde_json::to_value(&source).map_err(internal)?;
            // A pending source is announced once the donor has decided (test_psp_pages.rs).
            let kind = match source.status.as_str() {
                "failed" => Some(&PAYMENT_SOURCE_FAILED),
                "active" => Some(&PAYMENT_SOURCE_CREATED),
                _ => None,
            };
            if let Some(kind) = kind {
                let event = st.outbox.event(
                    kind,
                    source.uuid.parse().map_err(internal)?,
                    source.organisation_uuid.parse().ok(),
                    source.account_uuid.parse().ok(),
                    body.clone(),
                );
                append(tx, &[event], Some(&trace.0))?;
            }
            idempotency::complete(
                tx,
                &asker.client_id,
                &asker.key,
                &(StatusCode::CREATED, body.clone()),
            )?;
            Ok::<_, Failure>(body)
        })
        .await
        .map_err(ApiError::from)?;
    state.outbox.committed();
    Ok(HttpResponse::Created().json(body))
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
