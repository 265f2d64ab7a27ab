//! The text form of a sealed value: `v1.<kid>.<base64url(nonce || ciphertext || tag)>`.
//!
//! Text, so it fits a TEXT column, a file or an environment variable alike; versioned, so
//! a later format can be read beside this one; the key id in clear, so the right key is
//! found without trying each.

use aws_lc_rs::aead::NONCE_LEN;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

const VERSION: &str = "v1";
/// AES-256-GCM's tag.
const TAG_LEN: usize = 16;

/// A sealed value taken apart; nothing in it is checked cryptographically yet.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Parts<'a> {
    pub kid: &'a str,
    pub nonce: [u8; NONCE_LEN],
    /// Ciphertext followed by the tag.
    pub sealed: Vec<u8>,
}

/// What every value in the sealed form begins with, so that a store can tell sealed values
/// from others without reading them.
pub const SEALED_PREFIX: &str = "v1.";

/// Whether `value` is in a sealed form (rather than a plaintext row written before
/// sealing existed); says nothing about whether it opens.
pub fn is_sealed(value: &str) -> bool {
    value.starts_with(SEALED_PREFIX)
}

pub(crate) fn parse(value: &str) -> Option<Parts<'_>> {
    let mut fields = value.split('.');
    let (version, kid, body) = (fields.next()?, fields.next()?, fields.next()?);
    if version != VERSION || kid.is_empty() || fields.next().is_some() {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(body).ok()?;
    if bytes.len() < NONCE_LEN + TAG_LEN {
        return None;
    }
    let (nonce, sealed) = bytes.split_at(NONCE_LEN);
    Some(Parts {
        kid,
        nonce: nonce.try_into().ok()?,
        sealed: sealed.to_vec(),
    })
}

/// What every value sealed under `kid` begins with.
pub(crate) fn prefix(kid: &str) -> String {
    format!("{VERSION}.{kid}.")
}

pub(crate) fn format(kid: &str, nonce: &[u8; NONCE_LEN], sealed: &[u8]) -> String {
    let mut body = Vec::with_capacity(NONCE_LEN + sealed.len());
    body.extend_from_slice(nonce);
    body.extend_from_slice(sealed);
    format!("{}{}", prefix(kid), URL_SAFE_NO_PAD.encode(body))
}

/// What the tag authenticates besides the ciphertext: the version and key id (so neither
/// can be edited) and the context (so a value does not open in another row or field).
/// Key ids have no dots, so the context that follows cannot be confused with them.
pub(crate) fn associated_data(kid: &str, context: &str) -> Vec<u8> {
    format!("{VERSION}.{kid}.{context}").into_bytes()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn tag_length_is_the_algorithm_s() {
        assert_eq!(aws_lc_rs::aead::AES_256_GCM.tag_len(), TAG_LEN);
    }

    #[test]
    fn the_sealed_prefix_is_the_version_s() {
        assert_eq!(SEALED_PREFIX, format!("{VERSION}."));
        assert_eq!(prefix("k1"), format!("{SEALED_PREFIX}k1."));
    }

    #[test]
    fn formats_and_parses_back() {
        let nonce = [9u8; NONCE_LEN];
        let text = format("k1", &nonce, &[1u8; 20]);
        assert!(text.starts_with("v1.k1."));
        assert!(is_sealed(&text));
        let parts = parse(&text).unwrap();
        assert_eq!(parts.kid, "k1");
        assert_eq!(parts.nonce, nonce);
        assert_eq!(parts.sealed, vec![1u8; 20]);
    }

    #[test]
    fn tells_plaintext_rows_from_sealed_ones() {
        // A PKCS#8 key in standard base64, as identity stored it before sealing.
        assert!(!is_sealed("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"));
        assert!(!is_sealed("v1"));
        assert!(!is_sealed("v10.k.x"));
        assert!(parse("v2.k1.AAAA").is_none());
        assert!(parse("v1.k1.AAAA").is_none(), "shorter than nonce and tag");
        assert!(parse("v1..AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").is_none());
        assert!(parse(&format!("{}.extra", format("k", &[0; 12], &[0; 16]))).is_none());
    }
}
