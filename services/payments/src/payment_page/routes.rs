//! The donor's payment page: where a payment that needs its donor (3-D Secure, or a card
//! payment asked for without card data) sends them (`action.url`), a page for people rather
//! than an operation of the API. It takes no token: the payment's uuid is what the merchant
//! handed the donor.

use actix_web::http::header;
use actix_web::{HttpResponse, HttpResponseBuilder, web};
use coffer_http::body::Form;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, PathUuid};
use serde::Deserialize;

use super::commands::{self, Next, PageReads, Shown};
use super::domain::{self, Lang, ProviderSources, Waiting};
use crate::shared::connector::DonorStep;
use crate::shared::record::PaymentStatus;
use crate::state::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    t.hidden(|t| {
        t.public(|t| {
            t.get(domain::SCRIPT_PATH, script)
                .get("/pay/{payment_uuid}", page)
                .get("/pay/{payment_uuid}/return", back)
                .post("/pay/{payment_uuid}/card", card);
        });
    });
}

/// Coffer's own script of the page, the same for every payment.
async fn script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        // Revalidated on every page: a cached older script would not know a newer page.
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(include_str!("page.js"))
}

async fn page(
    (state, reads): (web::Data<PaymentsState>, web::Data<PageReads>),
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(render(
        commands::show((&state, &reads), uuid.to_string()).await?,
    ))
}

async fn back(
    (state, reads): (web::Data<PaymentsState>, web::Data<PageReads>),
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(
        match commands::returned((&state, &reads), uuid.to_string()).await? {
            Next::Back(location) => HttpResponse::SeeOther()
                .insert_header((header::LOCATION, location))
                .finish(),
            Next::Page(shown) => render(shown),
        },
    )
}

/// What the card form posts: the provider's token of the card, never the card.
#[derive(Deserialize)]
struct CardForm {
    token: String,
}

/// The donor's card, as the provider's script made a token of it: the payment is charged
/// with it. The page's script posts it and then goes to the return itself, a navigation
/// of its own: a redirect from a form post to the merchant's `return_url` would break the
/// page's `form-action 'self'`.
async fn card(
    (state, reads): (web::Data<PaymentsState>, web::Data<PageReads>),
    uuid: PathUuid,
    Form(form): Form<CardForm>,
) -> Result<HttpResponse, ApiError> {
    let token = domain::card_token(&form.token).map_err(|why| ApiError::invalid("token", why))?;
    commands::card_given((&state, &reads), uuid.to_string(), token).await?;
    Ok(HttpResponse::NoContent()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish())
}

fn render(shown: Shown) -> HttpResponse {
    match shown {
        Shown::Waiting(payment, page) => {
            let back = format!("/pay/{}/return", payment.uuid);
            let waiting = Waiting {
                lang: Lang::of(payment.locale.as_deref()),
                amount: &payment.amount,
                script: &page.script,
                publishable_key: &page.publishable_key,
                client_secret: &page.client_secret,
                back: &back,
                uuid: &payment.uuid,
            };
            let html = match page.step {
                DonorStep::EnterCard => domain::card_page(&waiting),
                DonorStep::Authenticate => domain::waiting_page(&waiting),
            };
            let sources = ProviderSources {
                scripts: &page.script_sources,
                frames: &page.frame_sources,
                connects: &page.connect_sources,
            };
            html_page(&domain::content_security_policy(&sources)).body(html)
        }
        Shown::Ended(payment) => {
            let lang = Lang::of(payment.locale.as_deref());
            let html = domain::ended_page(lang, payment.status == PaymentStatus::Succeeded);
            html_page(&domain::content_security_policy(&ProviderSources::default())).body(html)
        }
    }
}

/// A page only this donor's browser keeps: never cached, never framed, no referrer.
fn html_page(policy: &str) -> HttpResponseBuilder {
    let mut res = HttpResponse::Ok();
    res.content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, policy.to_owned()))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    res
}
