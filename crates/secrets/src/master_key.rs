//! One master key: a 256-bit AES-GCM key and the id that sealed values name it by.

use aws_lc_rs::aead::{AES_256_GCM, LessSafeKey, UnboundKey};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use zeroize::Zeroizing;

/// Bytes of a master key (AES-256).
pub const KEY_LEN: usize = 32;

/// Longest key id: it is repeated in every sealed value.
const MAX_KID_LEN: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MasterKeyError {
    #[error("{0:?} is not kid:base64key")]
    Shape(String),
    #[error("key id {0:?} must be 1 to 32 letters, digits, - or _")]
    Kid(String),
    #[error("key {kid} is not base64")]
    Encoding { kid: String },
    #[error("key {kid} is {len} bytes; a master key is 32 bytes (openssl rand -base64 32)")]
    Length { kid: String, len: usize },
    #[error("the system random number generator failed")]
    Random,
}

/// The key's bytes live only inside aws-lc's key schedule (which clears it when dropped);
/// the decoded copy made on the way in is zeroed.
pub struct MasterKey {
    kid: String,
    key: LessSafeKey,
}

impl std::fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MasterKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl MasterKey {
    pub fn new(kid: &str, bytes: &[u8]) -> Result<Self, MasterKeyError> {
        check_kid(kid)?;
        if bytes.len() != KEY_LEN {
            return Err(MasterKeyError::Length {
                kid: kid.to_owned(),
                len: bytes.len(),
            });
        }
        let unbound = UnboundKey::new(&AES_256_GCM, bytes).map_err(|_| MasterKeyError::Length {
            kid: kid.to_owned(),
            len: bytes.len(),
        })?;
        Ok(Self {
            kid: kid.to_owned(),
            key: LessSafeKey::new(unbound),
        })
    }

    /// `kid:base64key`, the form keys take in configuration. Standard and URL-safe
    /// base64 are both accepted, padded or not, since keys are pasted from several tools.
    pub fn parse(entry: &str) -> Result<Self, MasterKeyError> {
        let (kid, encoded) = entry
            .trim()
            .split_once(':')
            .ok_or_else(|| MasterKeyError::Shape(redacted(entry)))?;
        let kid = kid.trim();
        check_kid(kid)?;
        let normalised: Zeroizing<String> = Zeroizing::new(
            encoded
                .trim()
                .trim_end_matches('=')
                .chars()
                .map(|c| match c {
                    '-' => '+',
                    '_' => '/',
                    c => c,
                })
                .collect(),
        );
        let bytes =
            Zeroizing::new(STANDARD_NO_PAD.decode(normalised.as_bytes()).map_err(|_| {
                MasterKeyError::Encoding {
                    kid: kid.to_owned(),
                }
            })?);
        Self::new(kid, &bytes)
    }

    /// A new random key, with its configuration entry (`kid:base64key`) to hand to the
    /// operator once.
    pub fn generate(kid: &str) -> Result<(Self, Zeroizing<String>), MasterKeyError> {
        check_kid(kid)?;
        let mut bytes = Zeroizing::new([0u8; KEY_LEN]);
        aws_lc_rs::rand::fill(bytes.as_mut()).map_err(|_| MasterKeyError::Random)?;
        let entry = Zeroizing::new(format!("{kid}:{}", STANDARD.encode(bytes.as_ref())));
        Ok((Self::new(kid, bytes.as_ref())?, entry))
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    pub(crate) fn aead(&self) -> &LessSafeKey {
        &self.key
    }
}

/// Key ids appear inside sealed values, between dots, and in `kid:key,kid:key` lists.
fn check_kid(kid: &str) -> Result<(), MasterKeyError> {
    let ok = (1..=MAX_KID_LEN).contains(&kid.len())
        && kid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(MasterKeyError::Kid(kid.to_owned()))
    }
}

/// An entry without its separator may be a bare key: never echo it into a log.
fn redacted(entry: &str) -> String {
    let shown: String = entry.trim().chars().take(4).collect();
    format!("{shown}…")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_standard_and_url_safe_base64() {
        let bytes: Vec<u8> = (0u8..32)
            .map(|b| b.wrapping_mul(37).wrapping_add(250))
            .collect();
        let standard = STANDARD.encode(&bytes);
        let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&bytes);
        assert_ne!(
            standard.trim_end_matches('='),
            url_safe,
            "test needs + or /"
        );
        for encoded in [standard, url_safe] {
            let key = MasterKey::parse(&format!(" k1 : {encoded} ")).unwrap();
            assert_eq!(key.kid(), "k1");
        }
    }

    #[test]
    fn refuses_short_keys_bad_ids_and_missing_separator() {
        let short = STANDARD.encode([7u8; 16]);
        assert!(matches!(
            MasterKey::parse(&format!("k1:{short}")),
            Err(MasterKeyError::Length { len: 16, .. })
        ));
        let key = STANDARD.encode([7u8; 32]);
        assert!(matches!(
            MasterKey::parse(&format!("k.1:{key}")),
            Err(MasterKeyError::Kid(_))
        ));
        assert!(matches!(
            MasterKey::parse(&format!(":{key}")),
            Err(MasterKeyError::Kid(_))
        ));
        assert!(matches!(
            MasterKey::parse("k1:not base64!"),
            Err(MasterKeyError::Encoding { .. })
        ));
        let err = MasterKey::parse(&key).unwrap_err();
        assert!(!err.to_string().contains(&key), "a bare key is not echoed");
    }

    #[test]
    fn a_generated_entry_parses_back() {
        let (key, entry) = MasterKey::generate("fresh").unwrap();
        assert_eq!(key.kid(), "fresh");
        assert_eq!(MasterKey::parse(&entry).unwrap().kid(), "fresh");
    }
}
