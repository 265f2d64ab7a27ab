//! API client secrets: 256 random bits, shown once, stored only as a SHA-256 digest.
//!
//! A fast hash is right here: the secret is a random 256-bit value, not a password a person
//! chose, so there is nothing to guess and nothing a slow hash would protect. A slow hash
//! would only cap how many tokens a replica can grant per second.

use aws_lc_rs::constant_time::verify_slices_are_equal;

pub use coffer_secrets::RandomFailed;

/// A new secret, base64url without padding (43 characters).
pub fn generate() -> Result<String, RandomFailed> {
    coffer_secrets::random_token()
}

/// Lowercase hex of SHA-256 over the secret as sent.
pub fn digest_hex(secret: &str) -> String {
    coffer_secrets::sha256_hex(secret)
}

/// Compares in constant time, so response timing says nothing about how much matched.
pub fn matches(secret: &str, stored_digest_hex: &str) -> bool {
    verify_slices_are_equal(digest_hex(secret).as_bytes(), stored_digest_hex.as_bytes()).is_ok()
}

/// A digest no secret produces, compared against when the client id is unknown, so an
/// unknown id costs the same work as a wrong secret.
pub const UNKNOWN_CLIENT_DIGEST: &str =
    "0000000000000000000000000000000000000000000000000000000000000000";

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_and_distinct() {
        let a = generate().unwrap();
        let b = generate().unwrap();
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
    }

    #[test]
    fn digest_matches_only_its_secret() {
        let secret = generate().unwrap();
        let stored = digest_hex(&secret);
        assert!(matches(&secret, &stored));
        assert!(!matches("other", &stored));
        assert!(!matches(&secret, UNKNOWN_CLIENT_DIGEST));
    }
}
