//! The test provider's pages: where a donor is sent when a payment needs their approval
//! (3-D Secure, TWINT, PayPal), or when a payment source needs their agreement. Approve or
//! Decline finishes the payment (and a source it creates) or the source, and sends the donor
//! on to the merchant's `return_url`. Real providers host such pages themselves.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_events::catalogue::{
    PAYMENT_FAILED, PAYMENT_SOURCE_CREATED, PAYMENT_SOURCE_FAILED, PAYMENT_SUCCEEDED,
};
use coffer_events::{TraceContext, append};
use coffer_http::{ApiError, RequestTrace};
use coffer_model::ids::parse_uuid;
use diesel::result::Error as DieselError;

use super::record::PaymentStatus;
use super::store;
use crate::PaymentsState;
use crate::connectors::test_psp::PROVIDER;
use crate::sources::store::{self as sources, Source};

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

/// What the donor is asked to approve: a payment, or a payment source to keep.
enum Subject {
    Payment(Box<super::record::Payment>),
    Source(Box<Source>),
}

async fn subject(state: &PaymentsState, raw: &str) -> Result<Subject, ApiError> {
    let uuid = parse_uuid("payment_uuid", raw)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    let found = state
        .store
        .query(move |db| {
            if let Some(p) = store::find(db, &uuid)? {
                return Ok(Some(Subject::Payment(Box::new(p))));
            }
            Ok(sources::find(db, &uuid)?.map(|s| Subject::Source(Box::new(s))))
        })
        .await?;
    match found {
        Some(Subject::Payment(p)) if p.payment_provider == PROVIDER => Ok(Subject::Payment(p)),
        Some(Subject::Source(s)) if s.payment_provider == PROVIDER => Ok(Subject::Source(s)),
        _ => Err(ApiError::not_found("Payment")),
    }
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
    let (uuid, status, heading, what, noun) = match subject(&state, &path).await? {
        Subject::Payment(p) => (
            p.uuid,
            p.status.as_str().to_owned(),
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
            s.uuid,
            s.status,
            "Allow later donations",
            format!("Keep your {} for later donations", s.payment_method),
            "payment source",
        ),
    };
    let body = if status == "pending" {
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
            status = escape(&status)
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
    status: PaymentStatus,
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
                let mut events = vec![event];
                if let Some(source) = &finished.created_payment_source_uuid {
                    let (source_status, source_reason) = if status == PaymentStatus::Succeeded {
                        ("active", None)
                    } else {
                        ("failed", reason)
                    };
                    events.extend(decide_source(
                        tx,
                        &st,
                        source,
                        source_status,
                        source_reason,
                        now,
                    )?);
                }
                append(tx, &events, Some(&trace))?;
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
        "approve" => (PaymentStatus::Succeeded, None, &PAYMENT_SUCCEEDED),
        "decline" => (
            PaymentStatus::Failed,
            Some("authentication_failed"),
            &PAYMENT_FAILED,
        ),
        _ => return Err(ApiError::route_not_found()),
    };
    let payment = match subject(&state, &raw).await? {
        Subject::Payment(p) => *p,
        Subject::Source(source) => {
            let source_status = if status == PaymentStatus::Succeeded {
                "active"
            } else {
                "failed"
            };
            return finish_source(&state, *source, source_status, reason).await;
        }
    };
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
        Some(url) => Ok(back_to(
            url,
            "payment_uuid",
            &finished.uuid,
            finished.status.as_str(),
        )),
        None => page(state, web::Path::from(finished.uuid)).await,
    }
}

/// Sends the donor back to the merchant's page, saying what was decided.
fn back_to(url: &str, key: &str, uuid: &str, status: &str) -> HttpResponse {
    let sep = if url.contains('?') { '&' } else { '?' };
    HttpResponse::SeeOther()
        .insert_header((
            header::LOCATION,
            format!("{url}{sep}{key}={uuid}&status={status}"),
        ))
        .finish()
}

/// Ends a pending source as `status` and gives the event saying so; nothing when it was no
/// longer pending.
fn decide_source(
    tx: &mut coffer_store::Db<'_>,
    state: &PaymentsState,
    uuid: &str,
    status: &str,
    reason: Option<&str>,
    now: i64,
) -> Result<Option<coffer_events::OutboxEvent>, DieselError> {
    if !sources::complete(tx, uuid, status, reason, now)? {
        return Ok(None);
    }
    let source = sources::find(tx, uuid)?.ok_or(DieselError::NotFound)?;
    let data =
        serde_json::to_value(&source).map_err(|e| DieselError::SerializationError(Box::new(e)))?;
    let id = source
        .uuid
        .parse()
        .map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
    let kind = if status == "active" {
        &PAYMENT_SOURCE_CREATED
    } else {
        &PAYMENT_SOURCE_FAILED
    };
    Ok(Some(state.outbox.event(
        kind,
        id,
        source.organisation_uuid.parse().ok(),
        source.account_uuid.parse().ok(),
        data,
    )))
}

/// The donor's decision on a payment source, then on to the merchant's `return_url`.
async fn finish_source(
    state: &web::Data<PaymentsState>,
    source: Source,
    status: &'static str,
    reason: Option<&'static str>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.unix();
    let (st, uuid) = (state.clone(), source.uuid.clone());
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let event = decide_source(tx, &st, &uuid, status, reason, now)?;
                // The donor's browser carries no trace; the decision starts one.
                append(
                    tx,
                    &event.into_iter().collect::<Vec<_>>(),
                    Some(&TraceContext::new_root()),
                )?;
                Ok::<_, coffer_store::StoreError>(())
            })
        })
        .await?;
    state.outbox.committed();
    let uuid = source.uuid.clone();
    let decided = state
        .store
        .query(move |db| sources::find(db, &uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Payment source"))?;
    match &source.return_url {
        Some(url) => Ok(back_to(
            url,
            "payment_source_uuid",
            &decided.uuid,
            &decided.status,
        )),
        None => page(state.clone(), web::Path::from(decided.uuid)).await,
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
        PaymentStatus::Succeeded,
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
