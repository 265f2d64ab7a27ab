//! An authorization request (OpenID Connect Core section 3.1.2.1), checked. The client and
//! its redirect URI are checked first: until both are known good, nothing may be sent to
//! the URI, so those faults are shown on a page of Coffer's own (RFC 6749 section
//! 4.1.2.1). Every other fault goes back to the client as `error=` on its redirect URI.

use serde::{Deserialize, Serialize};
use url::Url;

use super::pkce;

/// Longest `state` and `nonce` carried: they travel in URLs and in the ID token.
pub const MAX_STATE_CHARS: usize = 1024;
pub const MAX_NONCE_CHARS: usize = 512;

/// The request as it came, from the query (GET) or the login form (POST).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct AuthorizeParams {
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub response_type: Option<String>,
    pub scope: Option<String>,
    pub state: Option<String>,
    pub nonce: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub ui_locales: Option<String>,
}

/// What the registered client is, as far as this check needs.
pub struct Registered<'a> {
    pub enabled: bool,
    pub redirect_uris: &'a [String],
}

/// A request good enough to show the login page for, and later to issue a code for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    pub client_id: String,
    pub redirect_uri: String,
    /// The scopes Coffer knows among those asked for, `openid` first.
    pub scope: Vec<&'static str>,
    pub state: Option<String>,
    pub nonce: Option<String>,
    pub code_challenge: Option<String>,
}

/// Why a request is refused, and where that is said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// On Coffer's own error page: the client or its redirect URI cannot be trusted.
    Page(PageFault),
    /// On the client's redirect URI, as RFC 6749 section 4.1.2.1 error codes: where the
    /// browser is sent, with `error`, `error_description` and `state`.
    Redirect {
        error: &'static str,
        location: String,
    },
}

/// Why a request is refused on Coffer's own page; the page says it in the user's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageFault {
    NoClient,
    UnknownClient,
    NoRedirectUri,
    UnregisteredRedirectUri,
}

/// Scopes Coffer grants; `name` is SPEC.md's, `profile` the standard one, and both add
/// the `name` claim.
const KNOWN_SCOPES: [&str; 4] = ["openid", "email", "name", "profile"];

fn present(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|v| !v.is_empty())
}

/// Checks `params` against the client they name (`None`: no such client).
pub fn check(
    params: &AuthorizeParams,
    client: Option<Registered<'_>>,
) -> Result<Authorization, Refusal> {
    let Some(client_id) = present(&params.client_id) else {
        return Err(Refusal::Page(PageFault::NoClient));
    };
    let Some(client) = client.filter(|c| c.enabled) else {
        return Err(Refusal::Page(PageFault::UnknownClient));
    };
    let Some(redirect_uri) = present(&params.redirect_uri) else {
        return Err(Refusal::Page(PageFault::NoRedirectUri));
    };
    // Exact string comparison (OAuth 2.0 security BCP, section 4.1.3): no prefix, no
    // normalisation, so nothing the client did not register can pass.
    if !client.redirect_uris.iter().any(|r| r == redirect_uri) {
        return Err(Refusal::Page(PageFault::UnregisteredRedirectUri));
    }
    let state = present(&params.state).map(str::to_owned);
    let refuse = |error, description| {
        let mut pairs = vec![("error", error), ("error_description", description)];
        if let Some(s) = state.as_deref() {
            pairs.push(("state", s));
        }
        Refusal::Redirect {
            error,
            location: redirect_to(redirect_uri, &pairs),
        }
    };
    if state
        .as_ref()
        .is_some_and(|s| s.chars().count() > MAX_STATE_CHARS)
    {
        return Err(refuse("invalid_request", "state is too long"));
    }
    match present(&params.response_type) {
        Some("code") => {}
        None => return Err(refuse("invalid_request", "response_type is required")),
        Some(_) => {
            return Err(refuse(
                "unsupported_response_type",
                "only response_type=code is supported",
            ));
        }
    }
    let asked: Vec<&str> = present(&params.scope)
        .unwrap_or("")
        .split(' ')
        .filter(|s| !s.is_empty())
        .collect();
    if !asked.contains(&"openid") {
        return Err(refuse("invalid_scope", "the openid scope is required"));
    }
    let scope: Vec<&'static str> = KNOWN_SCOPES
        .into_iter()
        .filter(|known| asked.contains(known))
        .collect();
    let nonce = present(&params.nonce).map(str::to_owned);
    if nonce
        .as_ref()
        .is_some_and(|n| n.chars().count() > MAX_NONCE_CHARS)
    {
        return Err(refuse("invalid_request", "nonce is too long"));
    }
    let code_challenge = match (
        present(&params.code_challenge),
        present(&params.code_challenge_method),
    ) {
        (None, None) => None,
        (None, Some(_)) => {
            return Err(refuse(
                "invalid_request",
                "code_challenge_method without code_challenge",
            ));
        }
        (Some(_), method) if method.unwrap_or("plain") != "S256" => {
            return Err(refuse(
                "invalid_request",
                "only code_challenge_method=S256 is supported",
            ));
        }
        (Some(challenge), _) if !pkce::well_formed(challenge) => {
            return Err(refuse("invalid_request", "code_challenge is malformed"));
        }
        (Some(challenge), _) => Some(challenge.to_owned()),
    };
    Ok(Authorization {
        client_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        scope,
        state,
        nonce,
        code_challenge,
    })
}

/// `redirect_uri` with `pairs` added to its query, keeping what it had.
pub fn redirect_to(redirect_uri: &str, pairs: &[(&str, &str)]) -> String {
    match Url::parse(redirect_uri) {
        Ok(mut url) => {
            {
                let mut query = url.query_pairs_mut();
                for (k, v) in pairs {
                    query.append_pair(k, v);
                }
            }
            url.to_string()
        }
        // Registered URIs were checked when the partner was made; this keeps the
        // function total all the same.
        Err(_) => redirect_uri.to_owned(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn params() -> AuthorizeParams {
        AuthorizeParams {
            client_id: Some("c".into()),
            redirect_uri: Some("https://crm.example/cb".into()),
            response_type: Some("code".into()),
            scope: Some("openid email profile other".into()),
            state: Some("s1".into()),
            nonce: Some("n1".into()),
            code_challenge: Some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into()),
            code_challenge_method: Some("S256".into()),
            ui_locales: None,
        }
    }

    fn client(uris: &[String]) -> Option<Registered<'_>> {
        Some(Registered {
            enabled: true,
            redirect_uris: uris,
        })
    }

    #[test]
    fn a_good_request_passes_with_known_scopes_only() {
        let uris = vec!["https://crm.example/cb".to_owned()];
        let a = check(&params(), client(&uris)).unwrap();
        assert_eq!(a.scope, ["openid", "email", "profile"]);
        assert_eq!(a.state.as_deref(), Some("s1"));
    }

    #[test]
    fn client_and_redirect_faults_stay_on_coffer() {
        let uris = vec!["https://crm.example/cb".to_owned()];
        assert!(matches!(check(&params(), None), Err(Refusal::Page(_))));
        let mut p = params();
        p.redirect_uri = Some("https://crm.example/cb/../evil".into());
        assert!(matches!(check(&p, client(&uris)), Err(Refusal::Page(_))));
        p.redirect_uri = Some("https://crm.example/cb?x=1".into());
        assert!(matches!(check(&p, client(&uris)), Err(Refusal::Page(_))));
    }

    #[test]
    fn other_faults_go_back_to_the_client() {
        let uris = vec!["https://crm.example/cb".to_owned()];
        let mut p = params();
        p.scope = Some("email".into());
        let Err(Refusal::Redirect { location: to, .. }) = check(&p, client(&uris)) else {
            panic!("a redirect was expected");
        };
        assert!(to.starts_with("https://crm.example/cb?error=invalid_scope"));
        assert!(to.ends_with("&state=s1"));
        let mut p = params();
        p.code_challenge_method = Some("plain".into());
        assert!(matches!(
            check(&p, client(&uris)),
            Err(Refusal::Redirect {
                error: "invalid_request",
                ..
            })
        ));
    }
}
