//! PKCE (RFC 7636) with S256 only: `plain` would hand the verifier to whoever reads the
//! authorization request, which is what PKCE is there to prevent.

use aws_lc_rs::constant_time::verify_slices_are_equal;
use aws_lc_rs::digest::{SHA256, digest};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// RFC 7636 section 4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~].
pub fn well_formed(value: &str) -> bool {
    (43..=128).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// BASE64URL(SHA256(verifier)), compared in constant time.
pub fn matches(verifier: &str, challenge: &str) -> bool {
    let computed = URL_SAFE_NO_PAD.encode(digest(&SHA256, verifier.as_bytes()));
    verify_slices_are_equal(computed.as_bytes(), challenge.as_bytes()).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_7636_example_matches() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(well_formed(verifier));
        assert!(matches(verifier, challenge));
        assert!(!matches(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj",
            challenge
        ));
    }
}
