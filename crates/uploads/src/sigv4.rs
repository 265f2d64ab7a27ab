//! AWS Signature Version 4 as browser-POST uploads use it: the policy document, base64
//! encoded, is the whole string to sign, under the usual date/region/service key chain.
//!
//! Both sides of Coffer need it: `issue` signs a policy and `verify` (the standalone store)
//! checks one. It is a handful of HMACs, done with aws-lc-rs, which the workspace already
//! uses for every other MAC.

use aws_lc_rs::hmac;
use time::OffsetDateTime;
use time::format_description::FormatItem;
use time::macros::format_description;

pub(crate) const ALGORITHM: &str = "AWS4-HMAC-SHA256";
pub(crate) const SERVICE: &str = "s3";
pub(crate) const TERMINATOR: &str = "aws4_request";

/// `X-Amz-Date`: basic ISO 8601 in UTC, e.g. `20261126T101500Z`.
pub(crate) const AMZ_DATE: &[FormatItem<'static>] =
    format_description!("[year][month][day]T[hour][minute][second]Z");
/// The date of a credential scope, e.g. `20261126`.
pub(crate) const SCOPE_DATE: &[FormatItem<'static>] = format_description!("[year][month][day]");

/// The key that signs for one day, one region and S3. `date` is the scope's `YYYYMMDD`.
pub(crate) fn signing_key(secret_key: &str, date: &str, region: &str) -> hmac::Key {
    let secret = format!("AWS4{secret_key}");
    let mut key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    for part in [date, region, SERVICE, TERMINATOR] {
        let tag = hmac::sign(&key, part.as_bytes());
        key = hmac::Key::new(hmac::HMAC_SHA256, tag.as_ref());
    }
    key
}

/// `X-Amz-Credential`: the access key and the scope the signing key was made for.
pub(crate) fn credential(access_key: &str, date: &str, region: &str) -> String {
    format!("{access_key}/{date}/{region}/{SERVICE}/{TERMINATOR}")
}

/// `X-Amz-Signature` for a base64 policy: lowercase hex, as S3 expects it.
pub(crate) fn sign_policy(key: &hmac::Key, policy_base64: &str) -> String {
    hex(hmac::sign(key, policy_base64.as_bytes()).as_ref())
}

/// Whether `signature_hex` is the policy's signature. The comparison takes the same time
/// wherever the two differ (aws-lc-rs's verify), so a forger learns nothing from timing.
pub(crate) fn policy_signature_matches(
    key: &hmac::Key,
    policy_base64: &str,
    signature_hex: &str,
) -> bool {
    match unhex(signature_hex) {
        Some(tag) => hmac::verify(key, policy_base64.as_bytes(), &tag).is_ok(),
        None => false,
    }
}

/// Formats `at` as `X-Amz-Date`; `at` must be in UTC.
pub(crate) fn amz_date(at: OffsetDateTime) -> Result<String, time::error::Format> {
    at.format(AMZ_DATE)
}

pub(crate) fn scope_date(at: OffsetDateTime) -> Result<String, time::error::Format> {
    at.format(SCOPE_DATE)
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

/// Decodes hex in either case; S3 sends lowercase, and accepting uppercase costs nothing.
fn unhex(text: &str) -> Option<Vec<u8>> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks_exact(2)
        .map(|pair| Some(nibble(pair[0])? << 4 | nibble(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn the_signing_key_is_the_one_rust_s3_derives() {
        // rust-s3's own derivation (hmac + sha2) is an independent implementation of the
        // same chain; agreeing on the key means agreeing on every signature made with it.
        let at = datetime!(2026-11-26 10:15:00 UTC);
        let region = s3::Region::Custom {
            region: "eu-central-1".to_owned(),
            endpoint: "http://127.0.0.1:1".to_owned(),
        };
        let theirs = s3::signing::signing_key(&at, "secret/key+1", &region, "s3").unwrap();
        let ours = signing_key("secret/key+1", "20261126", "eu-central-1");
        let probe = b"any message";
        let expected = {
            let key = hmac::Key::new(hmac::HMAC_SHA256, &theirs);
            hmac::sign(&key, probe)
        };
        assert_eq!(hmac::sign(&ours, probe).as_ref(), expected.as_ref());
    }

    #[test]
    fn signatures_round_trip_and_reject_changes() {
        let key = signing_key("s", "20261126", "us-east-1");
        let signature = sign_policy(&key, "cG9saWN5");
        assert_eq!(signature.len(), 64);
        assert!(policy_signature_matches(&key, "cG9saWN5", &signature));
        assert!(policy_signature_matches(
            &key,
            "cG9saWN5",
            &signature.to_uppercase()
        ));
        assert!(!policy_signature_matches(&key, "cG9saWN6", &signature));
        assert!(!policy_signature_matches(&key, "cG9saWN5", &signature[1..]));
        assert!(!policy_signature_matches(&key, "cG9saWN5", "zz"));
    }

    #[test]
    fn dates_use_the_basic_format() {
        let at = datetime!(2026-01-02 03:04:05 UTC);
        assert_eq!(amz_date(at).unwrap(), "20260102T030405Z");
        assert_eq!(scope_date(at).unwrap(), "20260102");
        assert_eq!(
            credential("AK", "20260102", "r"),
            "AK/20260102/r/s3/aws4_request"
        );
    }
}
