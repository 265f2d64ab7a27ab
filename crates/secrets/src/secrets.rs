//! The keyring every stored secret is sealed and opened with: several master keys, one of
//! them current. Sealing always uses the current key; opening finds the key a value names,
//! so values sealed before a rotation keep opening until they are sealed again.

use std::collections::BTreeMap;
use std::sync::Arc;

use aws_lc_rs::aead::{Aad, NONCE_LEN, Nonce};
use zeroize::Zeroizing;

use crate::master_key::{MasterKey, MasterKeyError};
use crate::sealed;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretsError {
    #[error("no master key is configured")]
    NoKeys,
    #[error("master key {0} is listed twice")]
    Duplicate(String),
    #[error("the current master key {0} is not among the keys")]
    UnknownCurrent(String),
    #[error("several master keys are configured; name the one that seals")]
    NoCurrent,
    #[error(transparent)]
    Key(#[from] MasterKeyError),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    #[error("the system random number generator failed")]
    Random,
    #[error("sealing failed")]
    Seal,
}

/// Why a value did not open. `Rejected` covers a wrong key, a wrong context and tampering
/// alike: AES-GCM cannot tell them apart, and an attacker should not learn which it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("not a sealed value")]
    Format,
    #[error("sealed under master key {kid}, which is not configured")]
    UnknownKey { kid: String },
    #[error("sealed value does not open under master key {kid} in this context")]
    Rejected { kid: String },
}

/// Why a value could not be sealed again under the current key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResealError {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Seal(#[from] SealError),
}

struct Keys {
    current: String,
    keys: BTreeMap<String, MasterKey>,
}

/// Cheap to clone: the keys are shared.
#[derive(Clone)]
pub struct Secrets {
    inner: Arc<Keys>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secrets")
            .field("current", &self.inner.current)
            .field("kids", &self.inner.keys.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Secrets {
    /// `current` may be `None` when there is exactly one key.
    pub fn new(keys: Vec<MasterKey>, current: Option<&str>) -> Result<Self, SecretsError> {
        let mut by_kid = BTreeMap::new();
        for key in keys {
            let kid = key.kid().to_owned();
            if by_kid.insert(kid.clone(), key).is_some() {
                return Err(SecretsError::Duplicate(kid));
            }
        }
        let current = match current {
            Some(kid) if by_kid.contains_key(kid) => kid.to_owned(),
            Some(kid) => return Err(SecretsError::UnknownCurrent(kid.to_owned())),
            None if by_kid.len() == 1 => by_kid.keys().next().cloned().unwrap_or_default(),
            None if by_kid.is_empty() => return Err(SecretsError::NoKeys),
            None => return Err(SecretsError::NoCurrent),
        };
        Ok(Self {
            inner: Arc::new(Keys {
                current,
                keys: by_kid,
            }),
        })
    }

    /// Keys in their configuration form, `kid1:base64key,kid2:base64key`.
    pub fn parse(keys: &str, current: Option<&str>) -> Result<Self, SecretsError> {
        let keys = keys
            .split(',')
            .filter(|entry| !entry.trim().is_empty())
            .map(MasterKey::parse)
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(keys, current)
    }

    /// A keyring of one random key that lives as long as the process: for tests, where
    /// nothing sealed has to open after a restart.
    pub fn ephemeral() -> Result<Self, SecretsError> {
        let (key, _) = MasterKey::generate("ephemeral")?;
        Self::new(vec![key], None)
    }

    pub fn current_kid(&self) -> &str {
        &self.inner.current
    }

    pub fn kids(&self) -> impl Iterator<Item = &str> {
        self.inner.keys.keys().map(String::as_str)
    }

    /// Seals `plaintext` under the current key, bound to `context` (what the value is and
    /// which row holds it, e.g. `identity.signing_key:<kid>`).
    pub fn seal(&self, context: &str, plaintext: &[u8]) -> Result<String, SealError> {
        let kid = self.current_kid();
        let key = self.inner.keys.get(kid).ok_or(SealError::Seal)?;
        // A random nonce per value: keys seal few values (far below the 2^32 bound for
        // random 96-bit nonces), and no counter has to survive restarts or replicas.
        let mut nonce = [0u8; NONCE_LEN];
        aws_lc_rs::rand::fill(&mut nonce).map_err(|_| SealError::Random)?;
        let mut in_out = plaintext.to_vec();
        let sealed = key
            .aead()
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(sealed::associated_data(kid, context)),
                &mut in_out,
            )
            .map(|()| sealed::format(kid, &nonce, &in_out));
        // On failure the buffer may hold plaintext; it holds ciphertext otherwise, and
        // zeroing it costs nothing either way.
        zeroize::Zeroize::zeroize(&mut in_out);
        sealed.map_err(|_| SealError::Seal)
    }

    /// Opens a value sealed under any configured key, for the same `context`.
    pub fn open(&self, context: &str, value: &str) -> Result<Zeroizing<Vec<u8>>, OpenError> {
        let parts = sealed::parse(value).ok_or(OpenError::Format)?;
        let kid = parts.kid;
        let key = self
            .inner
            .keys
            .get(kid)
            .ok_or_else(|| OpenError::UnknownKey {
                kid: kid.to_owned(),
            })?;
        let mut in_out = Zeroizing::new(parts.sealed);
        let len = key
            .aead()
            .open_in_place(
                Nonce::assume_unique_for_key(parts.nonce),
                Aad::from(sealed::associated_data(kid, context)),
                in_out.as_mut_slice(),
            )
            .map_err(|_| OpenError::Rejected {
                kid: kid.to_owned(),
            })?
            .len();
        in_out.truncate(len);
        Ok(in_out)
    }

    /// Whether `value` should be sealed again: it is plaintext, or sealed under a key that
    /// is no longer current.
    pub fn needs_sealing(&self, value: &str) -> bool {
        sealed::parse(value).is_none_or(|parts| parts.kid != self.current_kid())
    }

    /// What every value sealed under the current key begins with, so that a store can find
    /// those to seal again without opening any.
    pub fn current_prefix(&self) -> String {
        sealed::prefix(self.current_kid())
    }

    /// `value` opened and sealed again under the current key, in the same `context`; None
    /// when the current key sealed it already. A value that is not sealed is refused
    /// (`Format`) rather than sealed as it is: where sealed values are expected, one in
    /// another form is damage to report, not a secret to keep.
    pub fn reseal(&self, context: &str, value: &str) -> Result<Option<String>, ResealError> {
        if sealed::parse(value).is_some_and(|parts| parts.kid == self.current_kid()) {
            return Ok(None);
        }
        let opened = self.open(context, value)?;
        Ok(Some(self.seal(context, &opened)?))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

    use super::*;

    fn entry(kid: &str, byte: u8) -> String {
        format!("{kid}:{}", STANDARD.encode([byte; 32]))
    }

    fn ring(entries: &[(&str, u8)], current: &str) -> Secrets {
        let keys: Vec<String> = entries.iter().map(|(k, b)| entry(k, *b)).collect();
        Secrets::parse(&keys.join(","), Some(current)).unwrap()
    }

    const CONTEXT: &str = "identity.signing_key:abc";

    #[test]
    fn round_trip() {
        let secrets = ring(&[("k1", 1)], "k1");
        let sealed = secrets.seal(CONTEXT, b"private key bytes").unwrap();
        assert!(sealed.starts_with("v1.k1."));
        assert!(!sealed.contains("private"));
        assert_eq!(
            secrets.open(CONTEXT, &sealed).unwrap().as_slice(),
            b"private key bytes"
        );
        assert_eq!(
            secrets
                .open("x", &secrets.seal("x", b"").unwrap())
                .unwrap()
                .len(),
            0
        );
    }

    #[test]
    fn every_seal_takes_a_fresh_nonce() {
        let secrets = ring(&[("k1", 1)], "k1");
        let a = secrets.seal(CONTEXT, b"same").unwrap();
        let b = secrets.seal(CONTEXT, b"same").unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn a_value_does_not_open_in_another_context() {
        let secrets = ring(&[("k1", 1)], "k1");
        let sealed = secrets.seal(CONTEXT, b"secret").unwrap();
        assert_eq!(
            secrets.open("identity.signing_key:other", &sealed),
            Err(OpenError::Rejected { kid: "k1".into() })
        );
    }

    #[test]
    fn a_tampered_value_does_not_open() {
        let secrets = ring(&[("k1", 1)], "k1");
        let sealed = secrets.seal(CONTEXT, b"secret").unwrap();
        let body = sealed.rsplit('.').next().unwrap();
        let mut bytes = URL_SAFE_NO_PAD.decode(body).unwrap();
        for i in [0, NONCE_LEN, bytes.len() - 1] {
            bytes[i] ^= 1;
            let tampered = format!("v1.k1.{}", URL_SAFE_NO_PAD.encode(&bytes));
            assert_eq!(
                secrets.open(CONTEXT, &tampered),
                Err(OpenError::Rejected { kid: "k1".into() }),
                "byte {i} flipped"
            );
            bytes[i] ^= 1;
        }
        assert_eq!(secrets.open(CONTEXT, "v1.k1.!!"), Err(OpenError::Format));
        assert_eq!(secrets.open(CONTEXT, "plain"), Err(OpenError::Format));
    }

    #[test]
    fn the_key_id_is_bound_too() {
        // Two keys of the same bytes: relabelling a value's kid still fails, because the
        // kid is part of the associated data.
        let secrets = ring(&[("k1", 1), ("k2", 1)], "k1");
        let sealed = secrets.seal(CONTEXT, b"secret").unwrap();
        let relabelled = sealed.replacen("v1.k1.", "v1.k2.", 1);
        assert_eq!(
            secrets.open(CONTEXT, &relabelled),
            Err(OpenError::Rejected { kid: "k2".into() })
        );
    }

    #[test]
    fn a_value_names_a_key_that_is_not_configured() {
        let old = ring(&[("k1", 1)], "k1");
        let sealed = old.seal(CONTEXT, b"secret").unwrap();
        let other = ring(&[("k2", 2)], "k2");
        assert_eq!(
            other.open(CONTEXT, &sealed),
            Err(OpenError::UnknownKey { kid: "k1".into() })
        );
        // The same id with other bytes (a mistyped key) is rejected, not misread.
        let wrong = ring(&[("k1", 3)], "k1");
        assert_eq!(
            wrong.open(CONTEXT, &sealed),
            Err(OpenError::Rejected { kid: "k1".into() })
        );
    }

    #[test]
    fn rotation_opens_old_values_and_seals_under_the_new_key() {
        let before = ring(&[("k1", 1)], "k1");
        let old = before.seal(CONTEXT, b"secret").unwrap();
        let after = ring(&[("k1", 1), ("k2", 2)], "k2");
        assert!(after.needs_sealing(&old));
        let opened = after.open(CONTEXT, &old).unwrap();
        let resealed = after.seal(CONTEXT, &opened).unwrap();
        assert!(resealed.starts_with("v1.k2."));
        assert!(!after.needs_sealing(&resealed));
        assert!(after.needs_sealing("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"));
        // Once every value is resealed, the old key can go.
        let retired = ring(&[("k2", 2)], "k2");
        assert_eq!(
            retired.open(CONTEXT, &resealed).unwrap().as_slice(),
            b"secret"
        );
        assert!(retired.open(CONTEXT, &old).is_err());
    }

    #[test]
    fn reseal_answers_only_what_another_key_sealed() {
        let before = ring(&[("k1", 1)], "k1");
        let old = before.seal(CONTEXT, b"secret").unwrap();
        assert_eq!(before.reseal(CONTEXT, &old), Ok(None));
        assert!(old.starts_with(&before.current_prefix()));

        let after = ring(&[("k1", 1), ("k2", 2)], "k2");
        assert!(!old.starts_with(&after.current_prefix()));
        let resealed = after.reseal(CONTEXT, &old).unwrap().unwrap();
        assert!(resealed.starts_with(&after.current_prefix()), "{resealed}");
        assert_eq!(after.reseal(CONTEXT, &resealed), Ok(None));
        let retired = ring(&[("k2", 2)], "k2");
        assert_eq!(
            retired.open(CONTEXT, &resealed).unwrap().as_slice(),
            b"secret"
        );

        // Nothing is made of a value no key opens, one in another context, or plaintext.
        assert_eq!(
            retired.reseal(CONTEXT, &old),
            Err(ResealError::Open(OpenError::UnknownKey {
                kid: "k1".into()
            }))
        );
        assert_eq!(
            after.reseal("elsewhere", &old),
            Err(ResealError::Open(OpenError::Rejected { kid: "k1".into() }))
        );
        assert_eq!(
            after.reseal(CONTEXT, "secret"),
            Err(ResealError::Open(OpenError::Format))
        );
    }

    #[test]
    fn keyring_configuration_errors() {
        assert_eq!(Secrets::parse("", None).unwrap_err(), SecretsError::NoKeys);
        assert_eq!(
            Secrets::parse(" , ", None).unwrap_err(),
            SecretsError::NoKeys
        );
        let two = format!("{},{}", entry("a", 1), entry("b", 2));
        assert_eq!(
            Secrets::parse(&two, None).unwrap_err(),
            SecretsError::NoCurrent
        );
        assert_eq!(
            Secrets::parse(&two, Some("c")).unwrap_err(),
            SecretsError::UnknownCurrent("c".into())
        );
        let twice = format!("{},{}", entry("a", 1), entry("a", 2));
        assert_eq!(
            Secrets::parse(&twice, Some("a")).unwrap_err(),
            SecretsError::Duplicate("a".into())
        );
        let one = Secrets::parse(&entry("only", 1), None).unwrap();
        assert_eq!(one.current_kid(), "only");
        assert!(!format!("{one:?}").contains(&STANDARD.encode([1u8; 32])));
    }
}
