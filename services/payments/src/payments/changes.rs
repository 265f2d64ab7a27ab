//! Changes to an existing payment: cancel, and its custom parameters.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_events::append;
use coffer_events::catalogue::PAYMENT_CANCELLED;
use coffer_http::{ApiError, Json, OptionalJson, RequestTrace, Shape};
use coffer_model::ids::parse_uuid;
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde::Deserialize;

use super::record::{Payment, PaymentStatus};
use super::store;
use crate::PaymentsState;
use crate::failure::{Failure, internal};

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    // Shape C: SPEC.md shows these operations answering with a message.
    cfg.service(
        web::resource("/payments/{payment_uuid}/cancel")
            .app_data(Shape::C)
            .route(web::post().to(cancel)),
    )
    .service(
        web::resource("/payments/{payment_uuid}/custom-parameters")
            .app_data(Shape::C)
            .route(web::put().to(replace_parameters))
            .route(web::patch().to(patch_parameters)),
    );
}

/// The payment, locked for this transaction, once the caller may touch it.
fn load(tx: &mut Db<'_>, caller: &Caller, uuid: &str) -> Result<Payment, Failure> {
    let payment = store::find_for_update(tx, uuid)?
        .ok_or_else(|| Failure::Api(ApiError::not_found("Payment")))?;
    let account = payment.account_uuid.parse().map_err(internal)?;
    let organisation = payment.organisation_uuid.parse().map_err(internal)?;
    caller
        .require_account(account, organisation)
        .map_err(Failure::Api)?;
    Ok(payment)
}

fn payment_uuid(raw: &str) -> Result<String, ApiError> {
    parse_uuid("payment_uuid", raw)
        .map(|u| u.to_string())
        .map_err(|e| ApiError::validation(vec![e]))
}

/// The longest cancellation reason kept, in characters.
const MAX_REASON: usize = 1_000;

#[derive(Debug, Default, Deserialize)]
struct CancelRequest {
    reason: Option<String>,
}

async fn cancel(
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
    let now = state.clock.unix();
    let st = state.clone();
    let payment = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let payment = load(tx, &caller, &uuid)?;
                // Only a payment still waiting on the donor or the bank can be cancelled; a
                // succeeded one is refunded instead.
                if payment.status != PaymentStatus::Pending
                    || !store::transition(
                        tx,
                        &uuid,
                        PaymentStatus::Pending,
                        PaymentStatus::Cancelled,
                        reason.as_deref(),
                        now,
                    )?
                {
                    let hint = if payment.status == PaymentStatus::Succeeded {
                        "; refund it instead"
                    } else {
                        ""
                    };
                    return Err(Failure::Api(ApiError::bad_request(format!(
                        "Only a pending payment can be cancelled; this one is {}{hint}",
                        payment.status
                    ))));
                }
                let cancelled = store::find(tx, &uuid)?.ok_or(DieselError::NotFound)?;
                let body = serde_json::to_value(&cancelled).map_err(internal)?;
                let id = cancelled.uuid.parse().map_err(internal)?;
                let event = st.outbox.event(
                    &PAYMENT_CANCELLED,
                    id,
                    cancelled.organisation_uuid.parse().ok(),
                    cancelled.account_uuid.parse().ok(),
                    body,
                );
                append(tx, &[event], Some(&trace.0))?;
                Ok(cancelled)
            })
        })
        .await
        .map_err(ApiError::from)?;
    state.outbox.committed();
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
    let now = state.clock.unix();
    let parameters = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let payment = load(tx, &caller, &uuid)?;
                let mut next = if merge {
                    payment
                        .custom_parameters
                        .as_object()
                        .cloned()
                        .unwrap_or_default()
                } else {
                    serde_json::Map::new()
                };
                for (key, value) in incoming {
                    // In a merge, null removes the key.
                    if merge && value.is_null() {
                        next.remove(&key);
                    } else {
                        next.insert(key, value);
                    }
                }
                let next = serde_json::Value::Object(next);
                store::set_custom_parameters(tx, &uuid, &next, now)?;
                Ok::<_, Failure>(next)
            })
        })
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(parameters))
}

async fn replace_parameters(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    change_parameters(state, caller, path, body.0, false).await
}

async fn patch_parameters(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    change_parameters(state, caller, path, body.0, true).await
}
