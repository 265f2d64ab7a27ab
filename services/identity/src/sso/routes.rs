//! Single sign-on over HTTP: discovery, the authorization endpoint with its login page,
//! and the page's stylesheet. The code exchange is the token endpoint's (tokens/routes.rs).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_http::{ApiError, ClientAddress};

use super::commands::{self, Answer, Body, SignInForm};
use super::domain::authorize::AuthorizeParams;
use super::{discovery, form_token, page};
use crate::state::IdentityState;

/// The issuer: the configured one (`sso.issuer`, which `serve` requires), else, for
/// `coffer dev` and tests, `http://` and this request's Host header. Forwarded headers are
/// never read for it: any client can send them.
pub(crate) fn issuer(state: &IdentityState, req: &HttpRequest) -> String {
    if !state.sso.issuer.is_empty() {
        return state.sso.issuer.clone();
    }
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']')
                })
        })
        .unwrap_or("localhost");
    format!("http://{host}")
}

fn accept_language(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
}

/// The browser id from the cookie of this deployment's kind only: over https a plain
/// cookie (which anyone on a sibling host could have set) is not read.
fn browser(state: &IdentityState, req: &HttpRequest) -> Option<String> {
    req.cookie(form_token::cookie_name(secure(state)))
        .map(|c| c.value().to_owned())
        .filter(|v| !v.is_empty() && v.len() <= 64)
}

/// Whether the issuer is https: Coffer sits behind TLS it does not end, so the request's
/// own scheme says nothing.
fn secure(state: &IdentityState) -> bool {
    state.sso.issuer.starts_with("https://")
}

fn respond(answer: Answer) -> HttpResponse {
    let mut response = match answer.body {
        // The code travels in the Location: no Referer may carry this request's address on.
        Body::Redirect(to) => HttpResponse::Found()
            .insert_header((header::LOCATION, to))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::REFERRER_POLICY, "no-referrer"))
            .finish(),
        Body::Html(html) => page::respond(answer.status, html, answer.redirect_uri.as_deref()),
    };
    if let Some(secs) = answer.retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from(secs));
    }
    if let Some(id) = answer.set_browser {
        let _ = response.add_cookie(&form_token::cookie(id, answer.secure_cookie));
    }
    response
}

/// OpenID Connect Discovery 1.0: where the endpoints and keys are, and what they support.
#[utoipa::path(get, path = "/.well-known/openid-configuration", operation_id = "getOpenIdConfiguration",
    tag = "Single sign-on",
    responses((status = 200, description = "The provider's metadata", body = Object)))]
pub(crate) async fn configuration(
    state: web::Data<IdentityState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let document = discovery::document(&issuer(&state, &req)).map_err(ApiError::internal)?;
    // Taken from the request when no issuer is configured: then no cache may keep it.
    let caching = if state.sso.issuer.is_empty() {
        "no-store"
    } else {
        "public, max-age=300"
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, caching))
        .json(document))
}

/// The authorization endpoint (OpenID Connect Core section 3.1.2): the login page for a
/// partner's authorization request. An unknown client or redirect URI is an error page;
/// other faults go back to the redirect URI with `error=`.
#[utoipa::path(get, path = "/oauth2/authorize", operation_id = "authorize", tag = "Single sign-on",
    params(
        ("client_id" = String, Query, description = "The partner's client id"),
        ("redirect_uri" = String, Query, description = "One of the partner's registered redirect URIs, exactly"),
        ("response_type" = String, Query, description = "`code`"),
        ("scope" = String, Query, description = "Space-separated; `openid` required, `email`, `name` (or `profile`) optional"),
        ("state" = Option<String>, Query, description = "Returned with the code"),
        ("nonce" = Option<String>, Query, description = "Carried into the ID token"),
        ("code_challenge" = Option<String>, Query, description = "PKCE (RFC 7636), S256 only"),
        ("code_challenge_method" = Option<String>, Query, description = "`S256`"),
        ("ui_locales" = Option<String>, Query, description = "Preferred languages of the page: en, de, fr, it"),
    ),
    responses(
        (status = 200, description = "The login page", content_type = "text/html", body = String),
        (status = 302, description = "A refusal sent back to the redirect URI with `error=`"),
        (status = 400, description = "An unknown client or redirect URI (an error page)", content_type = "text/html", body = String),
    ))]
pub(crate) async fn authorize(
    state: web::Data<IdentityState>,
    req: HttpRequest,
    query: web::Query<AuthorizeParams>,
) -> HttpResponse {
    let answer = commands::begin(
        &state,
        query.into_inner(),
        accept_language(&req),
        browser(&state, &req),
    )
    .await;
    respond(answer)
}

/// The login form's post: the user's e-mail address and password, the authorization
/// request again and the form's token. Success is a 302 to the redirect URI with `code`
/// and `state`.
#[utoipa::path(post, path = "/oauth2/authorize", operation_id = "signIn", tag = "Single sign-on",
    request_body(content_type = "application/x-www-form-urlencoded", content = Object,
        description = "The authorization request's parameters, `form_token`, `email` and `password`",
        example = json!({"client_id": "3f1c0e8e-2d6b-4c55-9a39-2b8f1e1f0a77",
            "redirect_uri": "https://crm.example/sso/callback", "response_type": "code",
            "scope": "openid email name", "state": "af0ifjsldkj", "nonce": "n-0S6_WzA2Mj",
            "form_token": "(the page's hidden field)", "email": "ann@example.org",
            "password": "correct horse battery"})),
    responses(
        (status = 302, description = "Signed in: to the redirect URI with a code"),
        (status = 400, description = "An unknown client or redirect URI (an error page)", content_type = "text/html", body = String),
        (status = 401, description = "Wrong e-mail address or password: the page again", content_type = "text/html", body = String),
        (status = 403, description = "The form's token is missing, expired or not this browser's: a fresh page", content_type = "text/html", body = String),
        (status = 429, description = "Too many failures from this network: the page again, with Retry-After", content_type = "text/html", body = String),
    ))]
pub(crate) async fn sign_in(
    state: web::Data<IdentityState>,
    req: HttpRequest,
    from: ClientAddress,
    form: Result<web::Form<SignInForm>, actix_web::Error>,
) -> HttpResponse {
    // A person's browser posts the page's own form; anything else (no body, another
    // media type, a malformed one) gets the error page, in HTML like every answer here.
    let Ok(form) = form else {
        let lang = super::domain::locale::pick(None, accept_language(&req));
        let t = super::texts::of(lang);
        return page::respond(
            actix_web::http::StatusCode::BAD_REQUEST,
            page::error(t, t.unreadable),
            None,
        );
    };
    let answer = commands::sign_in(
        &state,
        form.into_inner(),
        accept_language(&req),
        browser(&state, &req),
        from.network(),
    )
    .await;
    respond(answer)
}

/// The login page's stylesheet.
pub(crate) async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .body(page::STYLESHEET)
}
