//! Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. While an
//! endpoint's key is being rotated a delivery carries one signature per key, separated by
//! spaces, and a receiver accepts the delivery when any of them verifies.

use aws_lc_rs::hmac;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// The signature of one delivery with one key (the key's bytes, endpoints::domain::key).
pub fn sign(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    let mut context = hmac::Context::with_key(&key);
    context.update(id.as_bytes());
    context.update(b".");
    context.update(timestamp.to_string().as_bytes());
    context.update(b".");
    context.update(body);
    format!("v1,{}", STANDARD.encode(context.sign().as_ref()))
}

/// The `webhook-signature` header: the delivery signed with each of `keys`, newest first.
pub fn header(keys: &[&[u8]], id: &str, timestamp: i64, body: &[u8]) -> String {
    keys.iter()
        .map(|key| sign(key, id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::endpoints::domain::key::key_bytes;

    // The example of the Standard Webhooks specification.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1_614_265_330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;

    #[test]
    fn the_specifications_example_signs_as_published() {
        assert_eq!(
            sign(&key_bytes(SECRET), ID, TIMESTAMP, BODY),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn a_rotation_signs_with_every_key_and_anything_changed_changes_the_signature() {
        let (new, old) = (b"new key".as_slice(), key_bytes(SECRET));
        let both = header(&[new, &old], ID, TIMESTAMP, BODY);
        let parts: Vec<&str> = both.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[1], sign(&old, ID, TIMESTAMP, BODY));
        assert_ne!(sign(&old, ID, TIMESTAMP + 1, BODY), parts[1]);
        assert_ne!(sign(&old, "msg_other", TIMESTAMP, BODY), parts[1]);
        assert_ne!(sign(&old, ID, TIMESTAMP, b"{}"), parts[1]);
    }
}
