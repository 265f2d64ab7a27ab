//! Refunds: part or all of what a succeeded payment has not yet given back.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_events::append;
use coffer_events::catalogue::REFUND_SUCCEEDED;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::{ApiError, OptionalJson, RequestTrace};
use coffer_model::ids::parse_uuid;
use coffer_model::money::Money;
use serde_json::json;

use super::store::{self, Refund};
use crate::PaymentsState;
use crate::failure::{Failure, internal};

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/payments/{payment_uuid}/refunds", web::post().to(create));
}

fn api(e: ApiError) -> Failure {
    Failure::Api(e)
}

async fn create(
    state: web::Data<PaymentsState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    key: IdempotencyKey,
    trace: RequestTrace,
    body: OptionalJson<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let uuid = parse_uuid("payment_uuid", &path)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    // No body at all refunds the residual; a body that was sent must say so itself, so a
    // request whose amount was lost on the way is refused rather than refunding everything.
    let body = body.0;
    let hash = idempotency::request_hash(&req, &body);
    let requested = match body.get("amount") {
        None => None,
        Some(serde_json::Value::Null) => {
            return Err(ApiError::invalid(
                "amount",
                "must be an amount; leave it out to refund the residual",
            ));
        }
        Some(value) => Some(Money::from_json("amount", value).map_err(ApiError::validation)?),
    };
    let now = state.clock.unix();
    let st = state.clone();
    let client = caller.client_id().to_owned();
    let response = idempotency::run(
        &state.store,
        state.clock.as_ref(),
        &client,
        key,
        hash,
        move |tx| {
            let payment =
                store::find(tx, &uuid)?.ok_or_else(|| api(ApiError::not_found("Payment")))?;
            let account = payment.account_uuid.parse().map_err(internal)?;
            let organisation = payment.organisation_uuid.parse().map_err(internal)?;
            caller.require_account(account, organisation).map_err(api)?;
            if payment.status != "succeeded" {
                return Err(api(ApiError::invalid(
                    "payment_uuid",
                    format!(
                        "only a succeeded payment can be refunded; this one is {}",
                        payment.status
                    ),
                )));
            }
            let residual = payment.amount.value - payment.refunded_amount.value;
            let amount = match requested {
                Some(m) if m.currency != payment.amount.currency => {
                    return Err(api(ApiError::invalid(
                        "amount.currency",
                        format!(
                            "must be the payment's currency, {}",
                            payment.amount.currency.code()
                        ),
                    )));
                }
                Some(m) if m.value == 0 => {
                    return Err(api(ApiError::invalid("amount.value", "must be above 0")));
                }
                Some(m) => m,
                None if residual == 0 => {
                    return Err(api(ApiError::invalid(
                        "amount",
                        "nothing is left to refund",
                    )));
                }
                None => Money {
                    value: residual,
                    currency: payment.amount.currency,
                },
            };
            // The check that counts is in the update: a concurrent refund may have taken the
            // residual since the payment was read.
            if !store::add_refunded(tx, &uuid, amount.value, now)? {
                return Err(api(ApiError::invalid(
                    "amount.value",
                    format!(
                        "exceeds what is left to refund ({} in minor units)",
                        payment.amount.value - payment.refunded_amount.value
                    ),
                )));
            }
            let refund = Refund {
                uuid: uuid::Uuid::new_v4().to_string(),
                amount,
                status: "succeeded".into(),
                created: now,
            };
            store::insert_refund(tx, &uuid, &refund)?;
            let answer =
                json!({ "uuid": refund.uuid, "amount": refund.amount, "status": refund.status });
            let mut data = answer.clone();
            data["payment_uuid"] = json!(uuid);
            let id = refund.uuid.parse().map_err(internal)?;
            let event = st.outbox.event(
                &REFUND_SUCCEEDED,
                id,
                Some(organisation),
                Some(account),
                data,
            );
            append(tx, &[event], Some(&trace.0))?;
            Ok::<_, Failure>((StatusCode::OK, answer))
        },
    )
    .await?;
    state.outbox.committed();
    Ok(response)
}
