use std::sync::Arc;

use coffer_model::clock::Clock;
use jsonwebtoken::{Algorithm, Validation};

use crate::{Claims, KeySource};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AuthError {
    #[error("no bearer token")]
    Missing,
    #[error("token is malformed")]
    Malformed,
    #[error("token is signed by an unknown key")]
    UnknownKey,
    #[error("token signature or claims are invalid")]
    Invalid,
    #[error("token has expired")]
    Expired,
    #[error("token is not valid yet (iat or nbf lies ahead of the clock)")]
    NotYetValid,
}

/// How far ahead of this service's clock a token's `iat` or `nbf` may lie. Identity's
/// replicas and the services that verify run on different machines whose clocks drift a
/// little; a token used the moment it is issued must not fail for a few seconds of skew,
/// while one dated further ahead was not issued by a healthy identity (or was signed to be
/// kept for later) and is refused.
pub const CLOCK_SKEW_LEEWAY_SECS: i64 = 60;

/// Checks access tokens: RS256 only, a known `kid`, the expected issuer, and the time
/// claims (`exp`, `iat`, `nbf`) against the injected clock (so tests can move time).
///
/// A token that verified once is remembered (bounded), so a client sending the same token
/// on every call pays for the RSA check once. A remembered token still has its time claims
/// checked and its key looked up on every use, so neither expiry nor a withdrawn key is
/// ever bypassed.
#[derive(Clone)]
pub struct Verifier {
    keys: KeySource,
    issuer: String,
    clock: Arc<dyn Clock>,
    verified: Arc<quick_cache::sync::Cache<String, (String, Claims)>>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// Distinct live tokens remembered at once.
const REMEMBERED_TOKENS: usize = 10_000;

impl Verifier {
    pub fn new(keys: KeySource, issuer: impl Into<String>, clock: Arc<dyn Clock>) -> Self {
        Self {
            keys,
            issuer: issuer.into(),
            clock,
            verified: Arc::new(quick_cache::sync::Cache::new(REMEMBERED_TOKENS)),
        }
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    pub async fn verify(&self, token: &str) -> Result<Claims, AuthError> {
        if let Some((kid, claims)) = self.verified.get(token) {
            if self.keys.key(&kid).await.is_none() {
                self.verified.remove(token);
                return Err(AuthError::UnknownKey);
            }
            return self.in_time(claims);
        }
        let (kid, claims) = self.verify_signature(token).await?;
        let claims = self.in_time(claims)?;
        self.verified
            .insert(token.to_owned(), (kid, claims.clone()));
        Ok(claims)
    }

    fn in_time(&self, claims: Claims) -> Result<Claims, AuthError> {
        let now = self.clock.unix();
        if claims.exp <= now {
            return Err(AuthError::Expired);
        }
        let valid_from = claims.nbf.map_or(claims.iat, |nbf| nbf.max(claims.iat));
        if valid_from > now.saturating_add(CLOCK_SKEW_LEEWAY_SECS) {
            return Err(AuthError::NotYetValid);
        }
        Ok(claims)
    }

    async fn verify_signature(&self, token: &str) -> Result<(String, Claims), AuthError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| AuthError::Malformed)?;
        if header.alg != Algorithm::RS256 {
            return Err(AuthError::Invalid);
        }
        let kid = header.kid.ok_or(AuthError::Malformed)?;
        let key = self.keys.key(&kid).await.ok_or(AuthError::UnknownKey)?;

        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_issuer(&[&self.issuer]);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "sub"]);
        // Time claims are checked in `in_time` against Coffer's clock, not the system's.
        validation.validate_exp = false;
        validation.validate_nbf = false;
        let claims = jsonwebtoken::decode::<Claims>(token, &key, &validation)
            .map_err(|_| AuthError::Invalid)?
            .claims;
        Ok((kid, claims))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{Jwks, SharedKeys, SigningKey};
    use coffer_model::clock::ManualClock;

    fn setup() -> (SigningKey, Verifier, ManualClock) {
        let key = SigningKey::generate("k1").unwrap();
        let shared = SharedKeys::default();
        shared.replace(
            "test",
            &Jwks {
                keys: vec![key.jwk().clone()],
            },
        );
        let clock = ManualClock::at_unix(1_700_000_000);
        let verifier = Verifier::new(KeySource::Shared(shared), "coffer", Arc::new(clock.clone()));
        (key, verifier, clock)
    }

    fn claims(iat: i64) -> Claims {
        Claims {
            iss: "coffer".into(),
            sub: "client".into(),
            client_id: "client".into(),
            organisations: vec![uuid::Uuid::new_v4()],
            accounts: vec![],
            partner: None,
            scope: "coffer:api".into(),
            iat,
            nbf: None,
            exp: iat + 3600,
        }
    }

    #[tokio::test]
    async fn round_trip_then_expiry() {
        let (key, verifier, clock) = setup();
        let c = claims(1_700_000_000);
        let token = key.sign(&c).unwrap();
        assert_eq!(verifier.verify(&token).await.unwrap(), c);
        // The second call is answered from memory, and still sees the clock move.
        assert_eq!(verifier.verify(&token).await.unwrap(), c);
        clock.advance(time::Duration::seconds(3600));
        assert_eq!(verifier.verify(&token).await, Err(AuthError::Expired));
    }

    #[tokio::test]
    async fn iat_or_nbf_ahead_of_the_clock_by_more_than_the_leeway_is_refused() {
        let (key, verifier, _) = setup();
        let now = 1_700_000_000;
        let edge = now + CLOCK_SKEW_LEEWAY_SECS;
        let mut nbf_ahead = claims(now);
        nbf_ahead.nbf = Some(edge + 1);
        for (c, expected) in [
            (claims(edge), Ok(())),
            (claims(edge + 1), Err(AuthError::NotYetValid)),
            (nbf_ahead.clone(), Err(AuthError::NotYetValid)),
            (
                Claims {
                    nbf: Some(edge),
                    ..nbf_ahead
                },
                Ok(()),
            ),
        ] {
            let token = key.sign(&c).unwrap();
            assert_eq!(verifier.verify(&token).await.map(|_| ()), expected, "{c:?}");
        }
    }

    #[tokio::test]
    async fn a_remembered_token_is_held_to_nbf_when_the_clock_goes_back() {
        let (key, verifier, clock) = setup();
        let token = key.sign(&claims(1_700_000_000)).unwrap();
        assert!(verifier.verify(&token).await.is_ok());
        clock.advance(time::Duration::seconds(-(CLOCK_SKEW_LEEWAY_SECS + 1)));
        assert_eq!(verifier.verify(&token).await, Err(AuthError::NotYetValid));
    }

    #[tokio::test]
    async fn tampered_payload_is_rejected() {
        let (key, verifier, _) = setup();
        let token = key.sign(&claims(1_700_000_000)).unwrap();
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let mut other = claims(1_700_000_000);
        other.organisations = vec![uuid::Uuid::new_v4()];
        parts[1] = base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            serde_json::to_vec(&other).unwrap(),
        );
        assert_eq!(
            verifier.verify(&parts.join(".")).await,
            Err(AuthError::Invalid)
        );
    }

    #[tokio::test]
    async fn a_withdrawn_key_stops_remembered_tokens() {
        let key = SigningKey::generate("k1").unwrap();
        let shared = SharedKeys::default();
        shared.replace(
            "test",
            &Jwks {
                keys: vec![key.jwk().clone()],
            },
        );
        let clock = ManualClock::at_unix(1_700_000_000);
        let verifier = Verifier::new(KeySource::Shared(shared.clone()), "coffer", Arc::new(clock));
        let token = key.sign(&claims(1_700_000_000)).unwrap();
        assert!(verifier.verify(&token).await.is_ok());
        shared.replace("test", &Jwks::default());
        assert_eq!(verifier.verify(&token).await, Err(AuthError::UnknownKey));
    }

    #[tokio::test]
    async fn unknown_kid_and_pkcs8_round_trip() {
        let (key, verifier, _) = setup();
        let stored = key.to_pkcs8().unwrap();
        let reloaded = SigningKey::from_pkcs8("other", &stored).unwrap();
        let token = reloaded.sign(&claims(1_700_000_000)).unwrap();
        assert_eq!(verifier.verify(&token).await, Err(AuthError::UnknownKey));
        assert_eq!(reloaded.jwk().n, key.jwk().n);
    }
}
