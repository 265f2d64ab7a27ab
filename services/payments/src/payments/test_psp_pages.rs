//! The test provider's pages: where a donor is sent when a payment needs their approval
//! (3-D Secure, TWINT, PayPal), or when a payment source needs their agreement. Approve or
//! Decline finishes the payment (and a source it creates) or the source, and sends the donor
//! on to the merchant's `return_url`. Real providers host such pages themselves.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, RequestTrace};
use coffer_model::ids::parse_uuid;

use super::commands::test_psp::{self, Next, Subject};
use super::domain::Decision;
use crate::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    // The donor's side of the test provider: a page a browser opens, not the API.
    t.hidden(|t| {
        t.public(|t| {
            t.get("/test-psp/3ds/{payment_uuid}", page)
                .post("/test-psp/3ds/{payment_uuid}/{decision}", decide);
        })
        .post("/test-psp/sepa/{payment_uuid}/settle", settle);
    });
}

fn payment_uuid(raw: &str) -> Result<String, ApiError> {
    parse_uuid("payment_uuid", raw)
        .map(|u| u.to_string())
        .map_err(|e| ApiError::validation(vec![e]))
}

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

async fn page(
    state: web::Data<PaymentsState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let uuid = payment_uuid(&path)?;
    Ok(render(&test_psp::subject(&state, uuid).await?))
}

async fn decide(
    state: web::Data<PaymentsState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (raw, decision) = path.into_inner();
    let decision = Decision::parse(&decision).ok_or_else(ApiError::route_not_found)?;
    let uuid = payment_uuid(&raw)?;
    Ok(match test_psp::decide(&state, uuid, decision).await? {
        Next::Back(location) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, location))
            .finish(),
        Next::Page(subject) => render(&subject),
    })
}

/// Test mode only: the bank has collected a direct debit.
async fn settle(
    state: web::Data<PaymentsState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
) -> Result<HttpResponse, ApiError> {
    let uuid = payment_uuid(&path)?;
    let payment = test_psp::settle_debit(&state, &caller, uuid, trace.0).await?;
    Ok(HttpResponse::Ok().json(payment))
}
