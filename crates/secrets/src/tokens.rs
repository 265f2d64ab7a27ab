//! Random bearer values (client secrets, authorization codes, onboarding tokens) and the
//! digest they are looked up by. They are 256 random bits, so a fast hash is right: there
//! is nothing to guess, and a slow one would only slow every lookup.

use aws_lc_rs::digest::{SHA256, digest};
use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

#[derive(Debug, thiserror::Error)]
#[error("the system random number generator failed")]
pub struct RandomFailed;

/// 256 random bits, base64url without padding (43 characters).
pub fn random_token() -> Result<String, RandomFailed> {
    let mut bytes = [0u8; 32];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| RandomFailed)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// Lowercase hex of SHA-256 over `bytes` (text or a file).
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    digest(&SHA256, bytes.as_ref())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_and_distinct_and_digests_are_sha256() {
        let (a, b) = (random_token().unwrap(), random_token().unwrap());
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
