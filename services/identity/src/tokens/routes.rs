//! The token endpoint over HTTP (API.md, "Token"; RFC 6749 section 4.4).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_http::{ApiError, ClientAddress, JsonOrForm};
use coffer_model::validation::{FieldError, Violations};
use serde::Deserialize;

use super::commands;
use super::issuer::TokenIssuer;
use crate::sso::commands::{self as sso, CodeExchange};
use crate::state::IdentityState;

/// RFC 6749 sections 4.4 (client credentials) and 4.1.3 (an authorization code from
/// single sign-on). The client's id and secret come here or as HTTP Basic.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"grant_type": "client_credentials", "client_id": "3f1c0e8e-2d6b-4c55-9a39-2b8f1e1f0a77", "client_secret": "s3cr3t"}))]
pub(crate) struct TokenRequest {
    /// `client_credentials` or `authorization_code`.
    #[schema(required = true, value_type = String)]
    grant_type: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    /// authorization_code: the code from the redirect.
    code: Option<String>,
    /// authorization_code: the redirect URI of the authorization request, exactly.
    redirect_uri: Option<String>,
    /// authorization_code: the PKCE verifier, when the request had a challenge.
    code_verifier: Option<String>,
}

/// An issued access token (RFC 6749 section 5.1).
#[derive(serde::Serialize, utoipa::ToSchema)]
pub(crate) struct Issued {
    /// Always `Bearer`.
    #[schema(value_type = String)]
    token_type: &'static str,
    /// Seconds the token is valid for.
    expires_in: i64,
    access_token: String,
}

fn present(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.is_empty())
}

/// An access token for a client's id and secret (RFC 6749 section 4.4), or the tokens of
/// a single sign-on (section 4.1.3; OpenID Connect Core section 3.1.3).
#[utoipa::path(post, path = "/oauth2/token", operation_id = "createToken", tag = "Token",
    request_body(content(
        (TokenRequest = "application/json"),
        (TokenRequest = "application/x-www-form-urlencoded"),
    )),
    responses((status = 200, description = "An access token; for a code, also the ID token", body = Issued),
        (status = 400, description = "A malformed request, or a code that is unknown, used, expired or not this client's (`invalid_grant`)"),
        (status = 401, description = "Unknown client or wrong secret"),
        (status = 429, description = "Too many failed attempts from this network; see Retry-After")))]
pub(crate) async fn grant(
    state: web::Data<IdentityState>,
    grants: web::Data<TokenIssuer>,
    req: HttpRequest,
    from: ClientAddress,
    body: JsonOrForm<TokenRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.0;
    // Client credentials may come in the body or, as RFC 6749 prefers, as HTTP Basic.
    let basic = coffer_http::basic_credentials(&req);
    let mut v = Violations::default();
    let grant_type = v.require("grant_type", present(body.grant_type));
    let (client_id, client_secret) = match basic {
        Some((id, secret)) => (Some(id), Some(secret)),
        None => (
            v.require("client_id", present(body.client_id)),
            v.require("client_secret", present(body.client_secret)),
        ),
    };
    let code = match grant_type.as_deref() {
        Some("authorization_code") => v.require("code", present(body.code)),
        _ => None,
    };
    if !v.is_empty() {
        return Err(ApiError::validation(v.into_vec()).with_oauth("invalid_request"));
    }
    let (Some(grant_type), Some(client_id), Some(client_secret)) =
        (grant_type, client_id, client_secret)
    else {
        return Err(ApiError::bad_request("incomplete token request").with_oauth("invalid_request"));
    };
    // RFC 6749 section 5.1: token responses must not be cached.
    let mut ok = HttpResponse::Ok();
    ok.insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"));
    match (grant_type.as_str(), code) {
        ("client_credentials", _) => {
            let issued = commands::client_credentials(
                &state,
                &grants,
                &client_id,
                &client_secret,
                from.network(),
            )
            .await?;
            Ok(ok.json(Issued {
                token_type: "Bearer",
                expires_in: issued.expires_in,
                access_token: issued.access_token,
            }))
        }
        ("authorization_code", Some(code)) => {
            let issuer = crate::sso::routes::issuer(&state, &req);
            let asked = CodeExchange {
                client_id,
                client_secret,
                code,
                redirect_uri: present(body.redirect_uri),
                code_verifier: present(body.code_verifier),
            };
            let tokens = sso::exchange(&state, &issuer, asked, from.network()).await?;
            Ok(ok.json(tokens))
        }
        _ => Err(ApiError::validation(vec![FieldError::invalid_choice(
            "grant_type",
            "must be client_credentials or authorization_code",
        )])
        .with_oauth("unsupported_grant_type")),
    }
}
