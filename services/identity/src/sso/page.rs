//! The login page and the error page: plain HTML forms that work without JavaScript, with
//! every value escaped by the template (maud), no inline script or style, and headers that
//! keep the page out of frames and caches.

use actix_web::HttpResponse;
use actix_web::http::{StatusCode, header};
use maud::{DOCTYPE, Markup, html};
use url::Url;

use super::domain::authorize::AuthorizeParams;
use super::texts::Texts;

/// The page's stylesheet, served from identity itself (`style-src 'self'`).
pub const STYLESHEET_PATH: &str = "/oauth2/login.css";
pub const STYLESHEET: &str = "\
body{font-family:system-ui,sans-serif;background:#f4f1ec;color:#222;margin:0}\
main{max-width:24rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:.5rem;\
box-shadow:0 1px 4px rgba(0,0,0,.1)}\
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:1rem 0 .3rem}\
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;\
font-size:1rem;border:1px solid #999;border-radius:.3rem}\
button{margin-top:1.5rem;width:100%;padding:.7rem;font-size:1rem;border:0;border-radius:.3rem;\
background:#5b3a1e;color:#fff;cursor:pointer}\
.error{background:#fbe9e7;border-left:4px solid #c62828;padding:.6rem;margin:1rem 0}";

fn layout(t: &Texts, title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang=(t.lang) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex";
                title { (title) " · Coffer" }
                link rel="stylesheet" href=(STYLESHEET_PATH);
            }
            body { main { (body) } }
        }
    }
    .into_string()
}

fn hidden(name: &str, value: Option<&str>) -> Markup {
    html! {
        @if let Some(v) = value {
            input type="hidden" name=(name) value=(v);
        }
    }
}

/// The login form. It posts back to the authorize endpoint with the request's own
/// parameters, the form token (CSRF) and the user's address and password.
pub fn login(
    t: &Texts,
    partner: &str,
    params: &AuthorizeParams,
    form_token: &str,
    email: &str,
    message: Option<&str>,
) -> String {
    let body = html! {
        h1 { (t.title) }
        p { (t.sign_in_to) " " strong { (partner) } }
        p { (t.intro) }
        @if let Some(m) = message {
            p.error role="alert" { (m) }
        }
        form method="post" action="/oauth2/authorize" {
            (hidden("client_id", params.client_id.as_deref()))
            (hidden("redirect_uri", params.redirect_uri.as_deref()))
            (hidden("response_type", params.response_type.as_deref()))
            (hidden("scope", params.scope.as_deref()))
            (hidden("state", params.state.as_deref()))
            (hidden("nonce", params.nonce.as_deref()))
            (hidden("code_challenge", params.code_challenge.as_deref()))
            (hidden("code_challenge_method", params.code_challenge_method.as_deref()))
            (hidden("ui_locales", params.ui_locales.as_deref()))
            input type="hidden" name="form_token" value=(form_token);
            label for="email" { (t.email) }
            input #email type="email" name="email" value=(email) autocomplete="username"
                required autofocus maxlength="320";
            label for="password" { (t.password) }
            input #password type="password" name="password" autocomplete="current-password"
                required maxlength="1024";
            button type="submit" { (t.submit) }
        }
    };
    layout(t, t.title, body)
}

pub fn error(t: &Texts, message: &str) -> String {
    let body = html! {
        h1 { (t.error_title) }
        p.error role="alert" { (message) }
    };
    layout(t, t.error_title, body)
}

/// The origin a form on the page may end up at after its redirect: Chromium applies
/// `form-action` to the redirect that follows a submission too.
fn origin(redirect_uri: Option<&str>) -> Option<String> {
    let url = Url::parse(redirect_uri?).ok()?;
    Some(url.origin().ascii_serialization()).filter(|o| o != "null")
}

/// An HTML answer with the page's security headers.
pub fn respond(status: StatusCode, body: String, redirect_uri: Option<&str>) -> HttpResponse {
    let form_action = match origin(redirect_uri) {
        Some(o) => format!("'self' {o}"),
        None => "'self'".to_owned(),
    };
    let csp = format!(
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action {form_action}; \
         frame-ancestors 'none'; base-uri 'none'"
    );
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, csp))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body)
}
