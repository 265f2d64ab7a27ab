//! The login form's CSRF protection. The page sets a random browser id in a cookie and
//! puts a form token in a hidden field: the browser id, a digest of the authorization
//! request and an expiry, sealed with the master keys (coffer_secrets). A post counts only
//! when its token opens, names the cookie's browser id, matches the request it carries and
//! has not expired; nothing is stored on the server.

use aws_lc_rs::digest::{SHA256, digest};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use coffer_secrets::Secrets;
use serde::{Deserialize, Serialize};

use super::domain::authorize::AuthorizeParams;

/// The cookie that carries the browser id over plain http (`coffer dev`, tests).
pub const COOKIE: &str = "coffer_sso_browser";
/// The same over https: the `__Host-` prefix makes browsers refuse one set by another
/// host (a sibling subdomain) or without Secure, so a planted id cannot stand in for it.
pub const HOST_COOKIE: &str = "__Host-coffer_sso_browser";

/// The cookie's name when the issuer is `secure` (https) or not.
pub fn cookie_name(secure: bool) -> &'static str {
    if secure { HOST_COOKIE } else { COOKIE }
}

/// The cookie that sets browser id `id`: HttpOnly and SameSite=Lax always; over https
/// also Secure on path `/`, as the `__Host-` prefix requires.
pub fn cookie(id: String, secure: bool) -> actix_web::cookie::Cookie<'static> {
    actix_web::cookie::Cookie::build(cookie_name(secure), id)
        .path(if secure { "/" } else { "/oauth2/authorize" })
        .http_only(true)
        .secure(secure)
        .same_site(actix_web::cookie::SameSite::Lax)
        .finish()
}

const CONTEXT: &str = "identity.sso.login_form";

#[derive(Serialize, Deserialize)]
struct Sealed {
    browser: String,
    request: String,
    expires: i64,
}

fn request_digest(params: &AuthorizeParams) -> String {
    let canonical = serde_json::to_vec(params).unwrap_or_default();
    URL_SAFE_NO_PAD.encode(digest(&SHA256, &canonical))
}

/// A new random browser id.
pub fn new_browser_id() -> Option<String> {
    coffer_secrets::random_token().ok()
}

pub fn issue(
    secrets: &Secrets,
    browser: &str,
    params: &AuthorizeParams,
    expires: i64,
) -> Option<String> {
    let sealed = Sealed {
        browser: browser.to_owned(),
        request: request_digest(params),
        expires,
    };
    secrets
        .seal(CONTEXT, &serde_json::to_vec(&sealed).ok()?)
        .ok()
}

/// Whether `token` was issued to `browser` for `params` and is still good at `now`.
pub fn accepts(
    secrets: &Secrets,
    token: &str,
    browser: Option<&str>,
    params: &AuthorizeParams,
    now: i64,
) -> bool {
    let Some(browser) = browser else {
        return false;
    };
    let Ok(opened) = secrets.open(CONTEXT, token) else {
        return false;
    };
    let Ok(sealed) = serde_json::from_slice::<Sealed>(&opened) else {
        return false;
    };
    sealed.browser == browser && sealed.request == request_digest(params) && now < sealed.expires
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn over_https_the_cookie_is_a_host_cookie() {
        let c = cookie("b1".into(), true);
        assert_eq!(c.name(), "__Host-coffer_sso_browser");
        assert_eq!(
            (c.path(), c.secure(), c.http_only()),
            (Some("/"), Some(true), Some(true))
        );
        let c = cookie("b1".into(), false);
        assert_eq!(c.name(), "coffer_sso_browser");
        assert_eq!(c.secure(), Some(false));
    }

    #[test]
    fn a_token_holds_only_for_its_browser_request_and_time() {
        let secrets = Secrets::ephemeral().unwrap();
        let params = AuthorizeParams {
            client_id: Some("c".into()),
            ..AuthorizeParams::default()
        };
        let token = issue(&secrets, "b1", &params, 100).unwrap();
        assert!(accepts(&secrets, &token, Some("b1"), &params, 99));
        assert!(!accepts(&secrets, &token, Some("b2"), &params, 99));
        assert!(!accepts(&secrets, &token, None, &params, 99));
        assert!(!accepts(&secrets, &token, Some("b1"), &params, 100));
        let other = AuthorizeParams {
            state: Some("x".into()),
            ..params.clone()
        };
        assert!(!accepts(&secrets, &token, Some("b1"), &other, 99));
        let elsewhere = Secrets::ephemeral().unwrap();
        assert!(!accepts(&elsewhere, &token, Some("b1"), &params, 99));
    }
}
