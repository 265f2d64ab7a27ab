//! ID tokens (OpenID Connect Core section 2), built and signed with the `openidconnect`
//! crate's types. The signature is made by identity's own signing key (aws-lc-rs) through
//! the crate's signing-key trait: the crate's RSA signer would bring the `rsa` crate's
//! private-key code (RUSTSEC-2023-0071) and wants PKCS#1 PEM.

use chrono::{DateTime, Utc};
use coffer_auth::SigningKey;
use openidconnect::core::{
    CoreGenderClaim, CoreIdToken, CoreIdTokenClaims, CoreJsonWebKey, CoreJwsSigningAlgorithm,
};
use openidconnect::{
    AccessToken, Audience, EmptyAdditionalClaims, EndUserEmail, EndUserName, IssuerUrl,
    JsonWebKeyId, LocalizedClaim, Nonce, PrivateSigningKey, SigningError, StandardClaims,
    SubjectIdentifier,
};

/// Identity's current signing key, as the crate's trait wants it.
pub struct IdentityKey<'a> {
    key: &'a SigningKey,
    jwk: CoreJsonWebKey,
}

impl<'a> IdentityKey<'a> {
    pub fn new(key: &'a SigningKey) -> Self {
        let (n, e) = key.public_components();
        let jwk = CoreJsonWebKey::new_rsa(n, e, Some(JsonWebKeyId::new(key.kid().to_owned())));
        Self { key, jwk }
    }
}

impl PrivateSigningKey for IdentityKey<'_> {
    type VerificationKey = CoreJsonWebKey;

    fn sign(&self, alg: &CoreJwsSigningAlgorithm, message: &[u8]) -> Result<Vec<u8>, SigningError> {
        match alg {
            CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256 => self
                .key
                .sign_message(message)
                .map_err(|_| SigningError::CryptoError),
            other => Err(SigningError::UnsupportedAlg(format!("{other:?}"))),
        }
    }

    fn as_verification_key(&self) -> CoreJsonWebKey {
        self.jwk.clone()
    }
}

/// What goes into one ID token.
pub struct Subject<'a> {
    pub issuer: &'a str,
    pub client_id: &'a str,
    pub user_uuid: &'a str,
    pub email: Option<&'a str>,
    pub name: Option<&'a str>,
    pub nonce: Option<&'a str>,
    pub auth_time: i64,
    pub issued_at: i64,
    pub lifetime_secs: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum IdTokenError {
    #[error("the issuer is not a URL: {0}")]
    Issuer(String),
    #[error("a time is out of range")]
    Time,
    #[error("could not sign the ID token: {0}")]
    Sign(String),
}

fn at(secs: i64) -> Result<DateTime<Utc>, IdTokenError> {
    DateTime::from_timestamp(secs, 0).ok_or(IdTokenError::Time)
}

/// A signed ID token for `subject`, with `at_hash` over `access_token`.
pub fn sign(
    subject: &Subject<'_>,
    key: &SigningKey,
    access_token: &str,
) -> Result<String, IdTokenError> {
    let issuer = IssuerUrl::new(subject.issuer.to_owned())
        .map_err(|e| IdTokenError::Issuer(e.to_string()))?;
    let mut standard = StandardClaims::<CoreGenderClaim>::new(SubjectIdentifier::new(
        subject.user_uuid.to_owned(),
    ));
    if let Some(email) = subject.email {
        standard = standard
            .set_email(Some(EndUserEmail::new(email.to_owned())))
            // Coffer's users are made by operators and by onboarding, from addresses the
            // organisation gave; Coffer has sent them nothing to prove it (docs/partners.md).
            .set_email_verified(Some(false));
    }
    if let Some(name) = subject.name {
        standard = standard.set_name(Some(LocalizedClaim::from(EndUserName::new(
            name.to_owned(),
        ))));
    }
    let claims = CoreIdTokenClaims::new(
        issuer,
        vec![Audience::new(subject.client_id.to_owned())],
        at(subject.issued_at.saturating_add(subject.lifetime_secs))?,
        at(subject.issued_at)?,
        standard,
        EmptyAdditionalClaims {},
    )
    .set_auth_time(Some(at(subject.auth_time)?))
    .set_nonce(subject.nonce.map(|n| Nonce::new(n.to_owned())));
    let token = CoreIdToken::new(
        claims,
        &IdentityKey::new(key),
        CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256,
        Some(&AccessToken::new(access_token.to_owned())),
        None,
    )
    .map_err(|e| IdTokenError::Sign(e.to_string()))?;
    Ok(token.to_string())
}
