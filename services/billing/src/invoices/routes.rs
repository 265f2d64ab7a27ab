use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_events::catalogue::{INVOICE_CANCELLED, INVOICE_PAID};
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::{ApiError, Failure, Json, OptionalJson, RequestTrace, Shape};
use coffer_model::ids::parse_uuid;
use coffer_model::over_maximum;
use coffer_model::validation::FieldError;
use coffer_store::Db;
use serde_json::{Map, Value};

use super::charging;
use super::record::Invoice;
use super::store;
use crate::BillingState;
use crate::announce::announce;
use crate::subscriptions::record::Subscription;
use crate::subscriptions::routes::load as load_subscription;
use crate::subscriptions::store::rendered;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    // Shape A, as SPEC.md shows for Close an Invoice Manually.
    cfg.service(
        web::resource("/subscriptions/{subscription_uuid}/invoices")
            .app_data(Shape::A)
            .route(web::get().to(list))
            .route(web::post().to(create)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}")
            .app_data(Shape::A)
            .route(web::get().to(get)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}/close")
            .app_data(Shape::A)
            .route(web::post().to(close)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}/charge-attempts")
            .app_data(Shape::A)
            .route(web::post().to(charge)),
    );
}

/// The invoice with its attempts, as answered.
fn rendered_invoice(db: &mut Db<'_>, invoice: &Invoice) -> Result<Value, Failure> {
    let attempts = store::attempts_of(db, &invoice.uuid)?;
    Ok(invoice.render(&attempts))
}

/// The subscription (which the caller may touch) and one of its invoices.
async fn load(
    state: &BillingState,
    caller: &Caller,
    path: &(String, String),
) -> Result<(Subscription, Invoice), ApiError> {
    let s = load_subscription(state, caller, &path.0).await?;
    let id = parse_uuid("invoice_uuid", &path.1)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    let invoice = state
        .store
        .query(move |db| store::find_invoice(db, &id))
        .await?
        .filter(|i| i.subscription_uuid == s.uuid)
        .ok_or_else(|| ApiError::not_found("Invoice"))?;
    Ok((s, invoice))
}

async fn list(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let s = load_subscription(&state, &caller, &path).await?;
    let body = state
        .store
        .run(move |db| {
            let invoices = store::invoices_of(db, &s.uuid)?;
            invoices
                .iter()
                .map(|i| rendered_invoice(db, i))
                .collect::<Result<Vec<_>, Failure>>()
        })
        .await?;
    Ok(HttpResponse::Ok().json(body))
}

async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (_, invoice) = load(&state, &caller, &path).await?;
    let body = state
        .store
        .run(move |db| rendered_invoice(db, &invoice))
        .await?;
    Ok(HttpResponse::Ok().json(body))
}

/// An invoice made by hand: the subscription's amount unless another is given, its custom
/// parameters with the request's over them. It is charged when a charge attempt is made.
async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    path: web::Path<String>,
    trace: RequestTrace,
    body: OptionalJson<Value>,
) -> Result<HttpResponse, ApiError> {
    let body = body.0;
    let hash = idempotency::request_hash(&req, &body);
    let mut errors = Vec::new();
    let amount = match body.get("amount") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_i64().filter(|a| *a > 0) {
            Some(a) => Some(a),
            None => {
                errors.push(FieldError::not_valid(
                    "amount",
                    "must be a whole number of minor units above 0",
                ));
                None
            }
        },
    };
    let custom: Option<Map<String, Value>> = match body.get("custom_parameters") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) if m.values().all(Value::is_string) => Some(m.clone()),
        Some(_) => {
            errors.push(FieldError::not_valid(
                "custom_parameters",
                "must be an object of strings",
            ));
            None
        }
    };
    let service = match body.get("service_parameters") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => Some(v.clone()),
        Some(_) => {
            errors.push(FieldError::not_valid(
                "service_parameters",
                "must be an object",
            ));
            None
        }
    };
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let s = load_subscription(&state, &caller, &path).await?;
    if amount.is_some_and(|a| a > s.currency.max_minor_units()) {
        return Err(ApiError::validation(vec![over_maximum(
            "amount", s.currency,
        )]));
    }
    let now = state.clock.unix();
    let mut invoice = charging::draft(&s, None, now, now);
    if let Some(a) = amount {
        invoice.amount = a;
    }
    invoice.custom_parameters = charging::merged(&s.custom_parameters, custom.as_ref());
    if let Some(service) = service {
        invoice.service_parameters = service;
    }
    let st = state.clone();
    let response = idempotency::run(
        &state.store,
        state.clock.as_ref(),
        caller.client_id(),
        key,
        hash,
        move |tx| {
            charging::open(tx, &st.outbox, &invoice, Some(&trace.0))?;
            Ok::<_, Failure>((StatusCode::CREATED, rendered_invoice(tx, &invoice)?))
        },
    )
    .await?;
    state.outbox.committed();
    Ok(response)
}

/// Closes an open invoice as paid or cancelled: no charge, and no more retries.
async fn close(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    trace: RequestTrace,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let status = match body.0.get("status").and_then(Value::as_str) {
        Some("paid") => "paid",
        Some("cancelled") => "cancelled",
        _ => {
            return Err(ApiError::validation(vec![FieldError::invalid_choice(
                "status",
                "must be paid or cancelled",
            )]));
        }
    };
    let (_, mut invoice) = load(&state, &caller, &path).await?;
    if invoice.status != "open" {
        return Err(ApiError::validation(vec![FieldError::not_valid(
            "status",
            format!("the invoice is {} already", invoice.status),
        )]));
    }
    invoice.status = status.into();
    invoice.status_reason = "manual".into();
    invoice.next_attempt_date = None;
    let now = state.clock.unix();
    let st = state.clone();
    let body = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                if !store::save_invoice(tx, &invoice, "open", now)? {
                    return Err(Failure::Api(ApiError::conflict(
                        "The invoice changed meanwhile",
                    )));
                }
                let body = rendered_invoice(tx, &invoice)?;
                let kind = if status == "paid" {
                    &INVOICE_PAID
                } else {
                    &INVOICE_CANCELLED
                };
                announce(
                    tx,
                    &st.outbox,
                    kind,
                    (
                        &invoice.uuid,
                        &invoice.organisation_uuid,
                        &invoice.account_uuid,
                    ),
                    body.clone(),
                    Some(&trace.0),
                )?;
                Ok::<_, Failure>(body)
            })
        })
        .await?;
    state.outbox.committed();
    Ok(HttpResponse::Ok().json(body))
}

/// Starts a charge attempt by hand; 409 while one is pending (the unique index decides,
/// however many requests race) or when the invoice is no longer open.
async fn charge(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    path: web::Path<(String, String)>,
    trace: RequestTrace,
) -> Result<HttpResponse, ApiError> {
    let hash = idempotency::request_hash(&req, &Value::Null);
    let (s, invoice) = load(&state, &caller, &path).await?;
    if invoice.status != "open" {
        return Err(ApiError::conflict(format!(
            "The invoice is {}",
            invoice.status
        )));
    }
    let now = state.clock.unix();
    let st = state.clone();
    let response = idempotency::run(
        &state.store,
        state.clock.as_ref(),
        caller.client_id(),
        key,
        hash,
        move |tx| {
            // Judged on the invoice as it is now, locked: one paid meanwhile (its attempt
            // succeeded while this request waited) takes no other.
            let invoice = store::find_invoice_locked(tx, &invoice.uuid)?
                .ok_or_else(|| ApiError::not_found("Invoice"))?;
            if invoice.status != "open" {
                return Err(Failure::Api(ApiError::conflict(format!(
                    "The invoice is {}",
                    invoice.status
                ))));
            }
            let subscription = rendered(tx, &s)?;
            let attempt = charging::start(
                tx,
                &st.outbox,
                &s,
                subscription.clone(),
                &invoice,
                now,
                Some(&trace.0),
            )?
            .ok_or_else(|| ApiError::conflict("The invoice has a pending charge attempt"))?;
            Ok::<_, Failure>((
                StatusCode::CREATED,
                attempt.render(&invoice, Some(subscription)),
            ))
        },
    )
    .await?;
    state.outbox.committed();
    Ok(response)
}
