//! Whether a notification came from Stripe: its `Stripe-Signature` header (`t=<unix
//! time>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one `v1` per secret the endpoint has while
//! its secret rolls) checked against the connector account's webhook secrets, the current
//! one and the one before it. A signature older (or further ahead) than the tolerance is
//! refused, so a notification captured on its way cannot be replayed later; within the
//! tolerance, the event id does that (provider_notifications/store.rs). Pure: the clock's
//! time and the opened secrets are handed in.

use aws_lc_rs::{constant_time, hmac};

/// How far a signature's time may be from Coffer's clock, as Stripe's own libraries allow.
pub const TOLERANCE_SECS: i64 = 300;
/// Signatures read from one header at most; Stripe sends one per secret being rolled.
const MAX_SIGNATURES: usize = 8;

/// Why a notification is not taken as Stripe's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unverified {
    /// No `Stripe-Signature` header, or one without a time or a `v1` signature.
    Unsigned,
    /// Signed too long ago, or ahead of Coffer's clock by more than the tolerance.
    Stale,
    /// No secret of the connector account made any of its signatures.
    Mismatch,
}

impl Unverified {
    /// What the sender is told, and the metrics' label.
    pub fn as_str(self) -> &'static str {
        match self {
            Unverified::Unsigned => "unsigned",
            Unverified::Stale => "stale",
            Unverified::Mismatch => "mismatch",
        }
    }
}

/// A `Stripe-Signature` header read, and found recent: what remains is the HMAC, checked
/// once the connector account's secrets are opened ([`Signed::made_by`]). Reading and the
/// time come first since they cost nothing, and most forgeries fail there.
#[derive(Debug)]
pub struct Signed {
    time: i64,
    signatures: Vec<Vec<u8>>,
}

/// Reads `header` and checks its time against `now`.
pub fn read_header(header: Option<&str>, now: i64) -> Result<Signed, Unverified> {
    let (time, signatures) = header.and_then(parse).ok_or(Unverified::Unsigned)?;
    if now.abs_diff(time) > TOLERANCE_SECS.unsigned_abs() {
        return Err(Unverified::Stale);
    }
    Ok(Signed { time, signatures })
}

impl Signed {
    /// Whether one of `secrets` made one of the signatures over `body`: one HMAC per secret,
    /// compared with each signature in constant time.
    pub fn made_by(&self, body: &[u8], secrets: &[&[u8]]) -> Result<(), Unverified> {
        let mut signed = Vec::with_capacity(body.len() + 21);
        signed.extend_from_slice(self.time.to_string().as_bytes());
        signed.push(b'.');
        signed.extend_from_slice(body);
        let made = secrets.iter().any(|secret| {
            let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, secret), &signed);
            self.signatures
                .iter()
                .any(|s| constant_time::verify_slices_are_equal(tag.as_ref(), s).is_ok())
        });
        if made {
            Ok(())
        } else {
            Err(Unverified::Mismatch)
        }
    }
}

/// Checks `header` over `body` at `now` with each of `secrets`.
pub fn verify(
    header: Option<&str>,
    body: &[u8],
    secrets: &[&[u8]],
    now: i64,
) -> Result<(), Unverified> {
    read_header(header, now)?.made_by(body, secrets)
}

/// The header's time and its `v1` signatures (other schemes, such as the `v0` of test
/// events, are not taken); None without a time or a readable `v1`.
fn parse(header: &str) -> Option<(i64, Vec<Vec<u8>>)> {
    let mut time = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => time = Some(t.parse::<i64>().ok()?),
            Some(("v1", hex)) if signatures.len() < MAX_SIGNATURES => {
                if let Some(tag) = from_hex(hex) {
                    signatures.push(tag);
                }
            }
            _ => {}
        }
    }
    let time = time?;
    (!signatures.is_empty()).then_some((time, signatures))
}

/// A SHA-256 tag written in hex (64 digits).
fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"whsec_coffer_test_0123456789abcdef";
    const BODY: &[u8] = br#"{"id":"evt_1","type":"payment_intent.succeeded"}"#;

    fn sign(secret: &[u8], time: i64, body: &[u8]) -> String {
        let key = hmac::Key::new(hmac::HMAC_SHA256, secret);
        let mut signed = format!("{time}.").into_bytes();
        signed.extend_from_slice(body);
        let tag = hmac::sign(&key, &signed);
        tag.as_ref().iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn a_signature_by_either_secret_verifies() {
        let header = format!("t=1000,v1={}", sign(SECRET, 1000, BODY));
        let other: &[u8] = b"whsec_another_secret_000000000000";
        assert_eq!(verify(Some(&header), BODY, &[SECRET], 1000), Ok(()));
        assert_eq!(verify(Some(&header), BODY, &[other, SECRET], 1200), Ok(()));
        assert_eq!(
            verify(Some(&header), BODY, &[other], 1000),
            Err(Unverified::Mismatch)
        );
    }

    #[test]
    fn a_changed_body_or_time_does_not_verify() {
        let tag = sign(SECRET, 1000, BODY);
        let header = format!("t=1000,v1={tag}");
        assert_eq!(
            verify(Some(&header), b"{}", &[SECRET], 1000),
            Err(Unverified::Mismatch)
        );
        let moved = format!("t=1001,v1={tag}");
        assert_eq!(
            verify(Some(&moved), BODY, &[SECRET], 1000),
            Err(Unverified::Mismatch)
        );
    }

    #[test]
    fn one_good_signature_among_several_verifies() {
        let header = format!(
            "t=1000,v0={},v1={},v1={}",
            sign(SECRET, 1000, BODY),
            "00".repeat(32),
            sign(SECRET, 1000, BODY)
        );
        assert_eq!(verify(Some(&header), BODY, &[SECRET], 1000), Ok(()));
        let only_v0 = format!("t=1000,v0={}", sign(SECRET, 1000, BODY));
        assert_eq!(
            verify(Some(&only_v0), BODY, &[SECRET], 1000),
            Err(Unverified::Unsigned)
        );
    }

    #[test]
    fn old_or_early_signatures_are_stale() {
        let header = format!("t=1000,v1={}", sign(SECRET, 1000, BODY));
        assert_eq!(verify(Some(&header), BODY, &[SECRET], 1300), Ok(()));
        assert_eq!(
            verify(Some(&header), BODY, &[SECRET], 1301),
            Err(Unverified::Stale)
        );
        assert_eq!(
            verify(Some(&header), BODY, &[SECRET], 699),
            Err(Unverified::Stale)
        );
    }

    #[test]
    fn unreadable_headers_are_unsigned() {
        for header in [
            "",
            "t=1000",
            "v1=abcd",
            "t=x,v1=00",
            "t=1000,v1=zz",
            "t=99999999999999999999,v1=00",
        ] {
            assert_eq!(
                verify(Some(header), BODY, &[SECRET], 1000),
                Err(Unverified::Unsigned),
                "{header}"
            );
        }
        assert_eq!(
            verify(None, BODY, &[SECRET], 1000),
            Err(Unverified::Unsigned)
        );
    }
}
