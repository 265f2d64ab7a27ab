//! The discovery document (OpenID Connect Discovery 1.0, section 3), built with the
//! `openidconnect` crate's provider metadata so that what a client library parses is what
//! that library's authors wrote down.

use openidconnect::core::{
    CoreAuthDisplay, CoreClaimName, CoreClaimType, CoreClientAuthMethod, CoreGrantType,
    CoreJsonWebKey, CoreJweContentEncryptionAlgorithm, CoreJweKeyManagementAlgorithm,
    CoreJwsSigningAlgorithm, CoreResponseMode, CoreResponseType, CoreSubjectIdentifierType,
};
use openidconnect::{
    AdditionalProviderMetadata, AuthUrl, IssuerUrl, JsonWebKeySetUrl, PkceCodeChallengeMethod,
    ProviderMetadata, ResponseTypes, Scope, TokenUrl,
};
use serde::{Deserialize, Serialize};

/// What the crate's metadata has no field for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Extra {
    code_challenge_methods_supported: Vec<PkceCodeChallengeMethod>,
    /// Languages of the login page (ui_locales).
    ui_locales_supported: Vec<String>,
}

impl AdditionalProviderMetadata for Extra {}

type Metadata = ProviderMetadata<
    Extra,
    CoreAuthDisplay,
    CoreClientAuthMethod,
    CoreClaimName,
    CoreClaimType,
    CoreGrantType,
    CoreJweContentEncryptionAlgorithm,
    CoreJweKeyManagementAlgorithm,
    CoreJsonWebKey,
    CoreResponseMode,
    CoreResponseType,
    CoreSubjectIdentifierType,
>;

/// The document for `issuer` (no trailing slash: `iss` is compared byte for byte).
pub fn document(issuer: &str) -> Result<serde_json::Value, String> {
    let url = |path: &str| format!("{issuer}{path}");
    let metadata = Metadata::new(
        IssuerUrl::new(issuer.to_owned()).map_err(|e| e.to_string())?,
        AuthUrl::new(url("/oauth2/authorize")).map_err(|e| e.to_string())?,
        JsonWebKeySetUrl::new(url("/.well-known/jwks.json")).map_err(|e| e.to_string())?,
        vec![ResponseTypes::new(vec![CoreResponseType::Code])],
        vec![CoreSubjectIdentifierType::Public],
        vec![CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256],
        Extra {
            code_challenge_methods_supported: vec![PkceCodeChallengeMethod::new("S256".into())],
            ui_locales_supported: crate::users::domain::LOCALES
                .iter()
                .map(|l| (*l).to_owned())
                .collect(),
        },
    )
    .set_token_endpoint(Some(
        TokenUrl::new(url("/oauth2/token")).map_err(|e| e.to_string())?,
    ))
    .set_grant_types_supported(Some(vec![
        CoreGrantType::AuthorizationCode,
        CoreGrantType::ClientCredentials,
    ]))
    .set_scopes_supported(Some(
        ["openid", "email", "name", "profile"]
            .map(|s| Scope::new(s.into()))
            .to_vec(),
    ))
    .set_claims_supported(Some(
        [
            "iss",
            "sub",
            "aud",
            "exp",
            "iat",
            "auth_time",
            "nonce",
            "at_hash",
            "email",
            "email_verified",
            "name",
        ]
        .map(|c| CoreClaimName::new(c.into()))
        .to_vec(),
    ))
    .set_token_endpoint_auth_methods_supported(Some(vec![
        CoreClientAuthMethod::ClientSecretBasic,
        CoreClientAuthMethod::ClientSecretPost,
    ]))
    .set_response_modes_supported(Some(vec![CoreResponseMode::Query]));
    serde_json::to_value(&metadata).map_err(|e| e.to_string())
}
