//! Single sign-on's use cases: showing the login page for an authorization request,
//! signing a user in from it (a code for the partner), and exchanging that code for an ID
//! token at the token endpoint.

use std::net::IpAddr;

use crate::error::CommandError;
use actix_web::http::StatusCode;
use coffer_auth::Claims;

use super::domain::authorize::{
    self, Authorization, AuthorizeParams, PageFault, Refusal, Registered,
};
use super::domain::{locale, pkce};
use super::store::{self as codes, CodeRow, Redeemed};
use super::{form_token, id_token, page, texts};
use crate::clients::domain::secret;
use crate::partners::store::{self as partners, PartnerClient};
use crate::state::IdentityState;
use crate::users::commands::{self as users, Unchecked};
use crate::users::store as user_store;

/// Longest client id looked up: ids are uuids, and a longer one names no client.
const MAX_CLIENT_ID_CHARS: usize = 100;

/// What the browser is answered.
pub(crate) struct Answer {
    pub status: StatusCode,
    pub body: Body,
    /// A browser id to set in the form's cookie.
    pub set_browser: Option<String>,
    /// Where the form may lead (the page's `form-action`).
    pub redirect_uri: Option<String>,
    pub retry_after: Option<i64>,
    /// Whether the cookie is marked Secure (the configured issuer is https).
    pub secure_cookie: bool,
}

pub(crate) enum Body {
    Html(String),
    Redirect(String),
}

impl Answer {
    fn new(status: StatusCode, body: Body) -> Self {
        Self {
            status,
            body,
            set_browser: None,
            redirect_uri: None,
            retry_after: None,
            secure_cookie: false,
        }
    }

    fn html(status: StatusCode, html: String) -> Self {
        Self::new(status, Body::Html(html))
    }

    fn redirect(to: String) -> Self {
        Self::new(StatusCode::FOUND, Body::Redirect(to))
    }
}

/// The login form as posted: the authorization request, the form token, and the user's
/// address and password.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct SignInForm {
    #[serde(flatten)]
    pub params: AuthorizeParams,
    pub form_token: Option<String>,
    pub email: Option<String>,
    pub password: Option<String>,
}

async fn partner(
    state: &IdentityState,
    client_id: Option<&str>,
) -> Result<Option<PartnerClient>, CommandError> {
    let Some(id) = client_id.filter(|c| !c.is_empty() && c.len() <= MAX_CLIENT_ID_CHARS) else {
        return Ok(None);
    };
    let id = id.to_owned();
    Ok(state
        .store
        .query(move |c| partners::by_client(c, &id))
        .await?)
}

/// The request checked against its client: the partner and the authorization, or the
/// answer that refuses it.
async fn checked(
    state: &IdentityState,
    params: &AuthorizeParams,
    lang: &'static str,
) -> Result<(PartnerClient, Authorization), Answer> {
    let found = partner(state, params.client_id.as_deref())
        .await
        .map_err(|_| unavailable(lang))?;
    let registered = found.as_ref().map(|p| Registered {
        enabled: p.client.disabled_at.is_none(),
        redirect_uris: &p.redirect_uris,
    });
    match authorize::check(params, registered) {
        Ok(authorization) => match found {
            Some(p) => Ok((p, authorization)),
            None => {
                let t = texts::of(lang);
                Err(Answer::html(
                    StatusCode::BAD_REQUEST,
                    page::error(t, t.fault(PageFault::UnknownClient)),
                ))
            }
        },
        Err(Refusal::Redirect { location, .. }) => Err(Answer::redirect(location)),
        Err(Refusal::Page(fault)) => {
            let t = texts::of(lang);
            Err(Answer::html(
                StatusCode::BAD_REQUEST,
                page::error(t, t.fault(fault)),
            ))
        }
    }
}

/// What every login page of one request shows.
struct Shown<'a> {
    lang: &'static str,
    partner: &'a PartnerClient,
    params: &'a AuthorizeParams,
    /// The browser id from the cookie, if the browser sent one.
    browser: Option<String>,
}

fn unavailable(lang: &'static str) -> Answer {
    let t = texts::of(lang);
    Answer::html(
        StatusCode::SERVICE_UNAVAILABLE,
        page::error(t, t.unavailable),
    )
}

fn login_page(
    state: &IdentityState,
    shown: &Shown<'_>,
    status: StatusCode,
    email: &str,
    message: Option<String>,
) -> Answer {
    let Shown {
        lang,
        partner,
        params,
        ..
    } = *shown;
    let (browser, new) = match shown.browser.clone() {
        Some(b) => (b, false),
        None => match form_token::new_browser_id() {
            Some(b) => (b, true),
            None => return unavailable(lang),
        },
    };
    let expires = state.clock.unix().saturating_add(state.sso.form_ttl_secs);
    let Some(token) = form_token::issue(&state.secrets, &browser, params, expires) else {
        return unavailable(lang);
    };
    let html = page::login(
        texts::of(lang),
        &partner.partner.name,
        params,
        &token,
        email,
        message.as_deref(),
    );
    Answer {
        set_browser: new.then_some(browser),
        redirect_uri: params.redirect_uri.clone(),
        secure_cookie: state.sso.issuer.starts_with("https://"),
        ..Answer::html(status, html)
    }
}

/// GET /oauth2/authorize: the login page, or the refusal.
pub(crate) async fn begin(
    state: &IdentityState,
    params: AuthorizeParams,
    accept_language: Option<&str>,
    browser: Option<String>,
) -> Answer {
    let lang = locale::pick(params.ui_locales.as_deref(), accept_language);
    match checked(state, &params, lang).await {
        Ok((partner, _)) => {
            let shown = Shown {
                lang,
                partner: &partner,
                params: &params,
                browser,
            };
            login_page(state, &shown, StatusCode::OK, "", None)
        }
        Err(answer) => answer,
    }
}

/// POST /oauth2/authorize: signs the user in and sends them back with a code.
pub(crate) async fn sign_in(
    state: &IdentityState,
    form: SignInForm,
    accept_language: Option<&str>,
    browser: Option<String>,
    network: IpAddr,
) -> Answer {
    let params = form.params;
    let lang = locale::pick(params.ui_locales.as_deref(), accept_language);
    let t = texts::of(lang);
    let (partner, authorization) = match checked(state, &params, lang).await {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    let email = form.email.unwrap_or_default();
    let now = state.clock.unix();
    let token_ok = form.form_token.as_deref().is_some_and(|token| {
        form_token::accepts(&state.secrets, token, browser.as_deref(), &params, now)
    });
    let shown = Shown {
        lang,
        partner: &partner,
        params: &params,
        browser,
    };
    if !token_ok {
        // A fresh form for the same request: a user whose page sat open too long signs in
        // with one more click, a forged post gets nothing.
        return login_page(
            state,
            &shown,
            StatusCode::FORBIDDEN,
            &email,
            Some(t.form_expired.to_owned()),
        );
    }
    let password = form.password.unwrap_or_default();
    let user = match users::sign_in(state, &email, password, network).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            return login_page(
                state,
                &shown,
                StatusCode::UNAUTHORIZED,
                &email,
                Some(t.wrong.to_owned()),
            );
        }
        Err(Unchecked::Wait(wait)) => {
            let mut answer = login_page(
                state,
                &shown,
                StatusCode::TOO_MANY_REQUESTS,
                &email,
                Some(format!("{} {wait}", t.wait)),
            );
            answer.retry_after = Some(wait);
            return answer;
        }
        Err(Unchecked::Failed(e)) => {
            if !matches!(e, crate::error::CommandError::Busy) {
                tracing::error!(error = %e, "sign-in: could not read the user");
            }
            return unavailable(lang);
        }
    };
    // 256 random bits, like a client secret; kept only as its digest.
    let Ok(code) = secret::generate() else {
        return unavailable(lang);
    };
    let row = CodeRow {
        code_sha256: secret::digest_hex(&code),
        client_id: authorization.client_id.clone(),
        redirect_uri: authorization.redirect_uri.clone(),
        user_uuid: user.uuid.clone(),
        scope: authorization.scope.join(" "),
        nonce: authorization.nonce.clone(),
        code_challenge: authorization.code_challenge.clone(),
        auth_time: now,
        expires_at: now.saturating_add(state.sso.code_ttl_secs),
        redeemed_at: None,
        revoked_at: None,
    };
    if let Err(e) = state.store.query(move |c| codes::insert(c, &row)).await {
        tracing::error!(error = %e, "sign-in: could not store the code");
        return unavailable(lang);
    }
    let mut pairs = vec![("code", code.as_str())];
    if let Some(s) = authorization.state.as_deref() {
        pairs.push(("state", s));
    }
    Answer::redirect(authorize::redirect_to(&authorization.redirect_uri, &pairs))
}

/// The token endpoint's answer to a code.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub(crate) struct CodeTokens {
    pub access_token: String,
    /// Always `Bearer`.
    #[schema(value_type = String)]
    pub token_type: &'static str,
    /// 0: the access token is issued expired (SPEC.md, "Single sign-on").
    pub expires_in: i64,
    pub id_token: String,
    pub scope: String,
}

/// What the token endpoint was sent for the authorization-code grant.
pub(crate) struct CodeExchange {
    pub client_id: String,
    pub client_secret: String,
    pub code: String,
    pub redirect_uri: Option<String>,
    pub code_verifier: Option<String>,
}

/// POST /oauth2/token with grant_type=authorization_code.
pub(crate) async fn exchange(
    state: &IdentityState,
    issuer: &str,
    asked: CodeExchange,
    network: IpAddr,
) -> Result<CodeTokens, CommandError> {
    let found = partner(state, Some(&asked.client_id)).await?;
    let stored = found.as_ref().map_or(secret::UNKNOWN_CLIENT_DIGEST, |p| {
        p.client.secret_sha256.as_str()
    });
    let secret_ok = secret::matches(&asked.client_secret, stored);
    let Some(partner) = found.filter(|p| secret_ok && p.client.disabled_at.is_none()) else {
        return Err(state.failures.refuse(&asked.client_id, network).into());
    };
    let now = state.clock.unix();
    let digest = secret::digest_hex(&asked.code);
    let row = match state
        .store
        .query(move |c| codes::redeem(c, &digest, now))
        .await?
    {
        Redeemed::First(row) => *row,
        Redeemed::Again => {
            tracing::warn!(client_id = %asked.client_id, "a code was presented again; it is revoked");
            return Err(CommandError::InvalidGrant("the code was used already"));
        }
        Redeemed::Unknown => return Err(CommandError::InvalidGrant("unknown code")),
    };
    if row.client_id != partner.client.client_id {
        return Err(CommandError::InvalidGrant(
            "the code was issued to another client",
        ));
    }
    if row.expires_at <= now {
        return Err(CommandError::InvalidGrant("the code has expired"));
    }
    if asked.redirect_uri.as_deref() != Some(row.redirect_uri.as_str()) {
        return Err(CommandError::InvalidGrant(
            "redirect_uri differs from the authorization request's",
        ));
    }
    match (&row.code_challenge, &asked.code_verifier) {
        (Some(challenge), Some(verifier)) if pkce::matches(verifier, challenge) => {}
        (Some(_), _) => return Err(CommandError::InvalidGrant("code_verifier does not match")),
        // RFC 9700 section 2.1.1: a verifier for a code issued without a challenge is a
        // downgrade attempt.
        (None, Some(_)) => {
            return Err(CommandError::InvalidGrant(
                "no code_challenge was sent for this code",
            ));
        }
        (None, None) => {}
    }
    let uuid = row.user_uuid.clone();
    let user = state
        .store
        .query(move |c| user_store::find(c, &uuid))
        .await?
        .ok_or(CommandError::InvalidGrant("the user is gone"))?;
    let signer = state.keyring.signer().ok_or(CommandError::NoSigningKey)?;
    // Issued expired, as SPEC.md says: the partner's API calls use its own client
    // credentials, and this token only completes the OAuth exchange.
    let access = Claims {
        iss: state.access_issuer.clone(),
        sub: user.uuid.clone(),
        client_id: partner.client.client_id.clone(),
        organisations: Vec::new(),
        accounts: Vec::new(),
        partner: None,
        scope: row.scope.clone(),
        iat: now,
        nbf: None,
        exp: now,
    };
    let access_token = signer.sign(&access).map_err(CommandError::internal)?;
    let scopes: Vec<&str> = row.scope.split(' ').collect();
    let subject = id_token::Subject {
        issuer,
        client_id: &partner.client.client_id,
        user_uuid: &user.uuid,
        email: scopes.contains(&"email").then_some(user.email.as_str()),
        name: (scopes.contains(&"name") || scopes.contains(&"profile"))
            .then_some(user.name.as_str()),
        nonce: row.nonce.as_deref(),
        auth_time: row.auth_time,
        issued_at: now,
        lifetime_secs: state.sso.id_token_lifetime_secs,
    };
    let id_token =
        id_token::sign(&subject, &signer, &access_token).map_err(CommandError::internal)?;
    Ok(CodeTokens {
        access_token,
        token_type: "Bearer",
        expires_in: 0,
        id_token,
        scope: row.scope,
    })
}
