use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::rsa::{KeySize, PublicKeyComponents};
use aws_lc_rs::signature::{KeyPair, RSA_PKCS1_SHA256, RsaKeyPair};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;

use crate::{Claims, Jwk};

#[derive(Debug, thiserror::Error)]
pub enum SigningError {
    #[error("could not generate an RSA key")]
    Generate,
    #[error("stored signing key is not a PKCS#8 RSA key: {0}")]
    Rejected(String),
    #[error("could not sign a token")]
    Sign,
    #[error("could not encode token claims: {0}")]
    Encode(#[from] serde_json::Error),
}

/// An RSA-2048 key that signs access tokens (RS256), with the `kid` it is published under.
///
/// The key pair is parsed once and kept: parsing and checking an RSA private key costs
/// more than signing with it.
pub struct SigningKey {
    kid: String,
    pair: RsaKeyPair,
    jwk: Jwk,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct Header<'a> {
    alg: &'static str,
    typ: &'static str,
    kid: &'a str,
}

impl SigningKey {
    pub fn generate(kid: impl Into<String>) -> Result<Self, SigningError> {
        let pair = RsaKeyPair::generate(KeySize::Rsa2048).map_err(|_| SigningError::Generate)?;
        Ok(Self::from_pair(kid.into(), pair))
    }

    pub fn from_pkcs8(kid: impl Into<String>, der: &[u8]) -> Result<Self, SigningError> {
        let pair =
            RsaKeyPair::from_pkcs8(der).map_err(|e| SigningError::Rejected(e.to_string()))?;
        Ok(Self::from_pair(kid.into(), pair))
    }

    fn from_pair(kid: String, pair: RsaKeyPair) -> Self {
        let components = PublicKeyComponents::<Vec<u8>>::from(pair.public_key());
        let jwk = Jwk {
            kty: "RSA".into(),
            use_: Some("sig".into()),
            alg: Some("RS256".into()),
            kid: kid.clone(),
            n: URL_SAFE_NO_PAD.encode(&components.n),
            e: URL_SAFE_NO_PAD.encode(&components.e),
        };
        Self { kid, pair, jwk }
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The private key as PKCS#8 DER, for storage.
    pub fn to_pkcs8(&self) -> Result<Vec<u8>, SigningError> {
        let der: Pkcs8V1Der<'static> =
            AsDer::<Pkcs8V1Der>::as_der(&self.pair).map_err(|_| SigningError::Generate)?;
        Ok(der.as_ref().to_vec())
    }

    pub fn jwk(&self) -> &Jwk {
        &self.jwk
    }

    /// A compact JWS: base64url(header).base64url(claims).base64url(RS256 signature).
    pub fn sign(&self, claims: &Claims) -> Result<String, SigningError> {
        let header = Header {
            alg: "RS256",
            typ: "JWT",
            kid: &self.kid,
        };
        let mut token = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&header)?);
        token.push('.');
        token.push_str(&URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims)?));
        let signature = self.sign_message(token.as_bytes())?;
        token.push('.');
        token.push_str(&URL_SAFE_NO_PAD.encode(signature));
        Ok(token)
    }

    /// The RS256 signature (RSASSA-PKCS1-v1_5 over SHA-256) of `message`: for JWS
    /// libraries that build the signing input themselves, such as identity's ID tokens.
    pub fn sign_message(&self, message: &[u8]) -> Result<Vec<u8>, SigningError> {
        let mut signature = vec![0; self.pair.public_modulus_len()];
        self.pair
            .sign(
                &RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                message,
                &mut signature,
            )
            .map_err(|_| SigningError::Sign)?;
        Ok(signature)
    }

    /// The public key's modulus and exponent, big-endian without leading zeros.
    pub fn public_components(&self) -> (Vec<u8>, Vec<u8>) {
        let components = PublicKeyComponents::<Vec<u8>>::from(self.pair.public_key());
        (components.n, components.e)
    }
}
