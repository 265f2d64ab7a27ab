use serde::{Deserialize, Serialize};

/// One RSA public key as published at `/.well-known/jwks.json` (RFC 7517).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Jwk {
    pub kty: String,
    #[serde(rename = "use", default, skip_serializing_if = "Option::is_none")]
    pub use_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alg: Option<String>,
    pub kid: String,
    /// Modulus, base64url without padding.
    pub n: String,
    /// Public exponent, base64url without padding.
    pub e: String,
}

/// The published signing keys (RFC 7517).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Jwks {
    pub keys: Vec<Jwk>,
}
