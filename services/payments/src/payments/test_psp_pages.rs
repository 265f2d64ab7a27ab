//! The test provider's pages: where a donor is sent when a payment needs their approval
//! (3-D Secure, TWINT, PayPal). Approve or Decline finishes the payment and sends the donor
//! on to the merchant's `return_url`. Real providers host such pages themselves.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_events::catalogue::{PAYMENT_FAILED, PAYMENT_SUCCEEDED};
use coffer_events::{TraceContext, append};
use coffer_http::{ApiError, RequestTrace};
use coffer_model::ids::parse_uuid;
use diesel::result::Error as DieselError;

use super::store;
use crate::PaymentsState;
use crate::connectors::test_psp::PROVIDER;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/test-psp/3ds/{payment_uuid}", web::get().to(page))
        .route(
            "/test-psp/3ds/{payment_uuid}/{decision}",
            web::post().to(decide),
        )
        .route(
            "/test-psp/sepa/{payment_uuid}/settle",
            web::post().to(settle),
        );
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

async fn pending(state: &PaymentsState, raw: &str) -> Result<super::record::Payment, ApiError> {
    let uuid = parse_uuid("payment_uuid", raw)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    let payment = state
        .store
        .query(move |db| store::find(db, &uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Payment"))?;
    if payment.payment_provider != PROVIDER {
        return Err(ApiError::not_found("Payment"));
    }
    Ok(payment)
}

async fn page(
    state: web::Data<PaymentsState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let payment = pending(&state, &path).await?;
    let body = if payment.status == "pending" {
        format!(
            r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Coffer test payment</title></head>
<body><h1>Confirm your payment</h1>
<p>{amount} {currency} by {method} (Coffer test provider)</p>
<form method="post" action="/test-psp/3ds/{uuid}/approve"><button type="submit" id="approve">Approve</button></form>
<form method="post" action="/test-psp/3ds/{uuid}/decline"><button type="submit" id="decline">Decline</button></form>
</body></html>"#,
            amount = escape(&payment.amount.to_major_string()),
            currency = payment.amount.currency.code(),
            method = escape(&payment.payment_method),
            uuid = payment.uuid,
        )
    } else {
        format!(
            r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Coffer test payment</title></head>
<body><h1>This payment is {status}</h1></body></html>"#,
            status = escape(&payment.status)
        )
    };
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(body))
}

/// Ends a pending payment of the test provider as `status`, with its event; `None` when it
/// was no longer pending.
async fn finish(
    state: &web::Data<PaymentsState>,
    uuid: String,
    status: &'static str,
    reason: Option<&'static str>,
    kind: &'static coffer_events::EventType,
    trace: TraceContext,
) -> Result<Option<super::record::Payment>, ApiError> {
    let now = state.clock.unix();
    let st = state.clone();
    let done = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                if !store::complete(tx, &uuid, status, reason, now)? {
                    return Ok(None);
                }
                let finished = store::find(tx, &uuid)?.ok_or(DieselError::NotFound)?;
                let data = serde_json::to_value(&finished)
                    .map_err(|e| DieselError::SerializationError(Box::new(e)))?;
                let id = finished
                    .uuid
                    .parse()
                    .map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
                let event = st.outbox.event(
                    kind,
                    id,
                    finished.organisation_uuid.parse().ok(),
                    finished.account_uuid.parse().ok(),
                    data,
                );
                append(tx, &[event], Some(&trace))?;
                Ok::<_, coffer_store::StoreError>(Some(finished))
            })
        })
        .await?;
    state.outbox.committed();
    Ok(done)
}

async fn decide(
    state: web::Data<PaymentsState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (raw, decision) = path.into_inner();
    let (status, reason, kind) = match decision.as_str() {
        "approve" => ("succeeded", None, &PAYMENT_SUCCEEDED),
        "decline" => ("failed", Some("authentication_failed"), &PAYMENT_FAILED),
        _ => return Err(ApiError::route_not_found()),
    };
    let payment = pending(&state, &raw).await?;
    // The donor's browser carries no trace; the decision starts one.
    let done = finish(
        &state,
        payment.uuid.clone(),
        status,
        reason,
        kind,
        TraceContext::new_root(),
    )
    .await?;
    let finished = match done {
        Some(p) => p,
        None => pending(&state, &raw).await?,
    };
    match &finished.return_url {
        Some(url) => {
            let sep = if url.contains('?') { '&' } else { '?' };
            let to = format!(
                "{url}{sep}payment_uuid={}&status={}",
                finished.uuid, finished.status
            );
            Ok(HttpResponse::SeeOther()
                .insert_header((header::LOCATION, to))
                .finish())
        }
        None => page(state, web::Path::from(finished.uuid)).await,
    }
}

/// Test mode only: the bank has collected a direct debit. In production the reconciliation
/// of a camt.054 file does this.
async fn settle(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
) -> Result<HttpResponse, ApiError> {
    let payment = pending(&state, &path).await?;
    caller.require_account(
        payment.account_uuid.parse().map_err(ApiError::internal)?,
        payment
            .organisation_uuid
            .parse()
            .map_err(ApiError::internal)?,
    )?;
    if payment.payment_method != "sepa_dd" {
        return Err(ApiError::invalid(
            "payment_uuid",
            "only a direct debit is settled",
        ));
    }
    match finish(
        &state,
        payment.uuid.clone(),
        "succeeded",
        None,
        &PAYMENT_SUCCEEDED,
        trace.0,
    )
    .await?
    {
        Some(done) => Ok(HttpResponse::Ok().json(done)),
        None => Err(ApiError::conflict(format!(
            "the payment is {}, not pending",
            payment.status
        ))),
    }
}
