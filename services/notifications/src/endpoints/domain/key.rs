//! An endpoint's signing key. Coffer makes one in the Standard Webhooks form, `whsec_`
//! followed by the base64 of 24 random bytes, which receivers' libraries take as it is. A
//! key given in that form signs with the bytes it encodes; a key given in any other form
//! signs with its own UTF-8 bytes, as a receiver that keeps a plain shared secret expects.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use coffer_model::validation::FieldError;

const PREFIX: &str = "whsec_";
/// The bytes of a key Coffer makes.
const GENERATED_BYTES: usize = 24;
/// A key given by a client: enough to be a secret, short enough for a header.
const MIN_CHARS: usize = 16;
const MAX_CHARS: usize = 256;

#[derive(Debug, PartialEq, Eq)]
pub struct RandomFailed;

/// A new key, in the `whsec_` form.
pub fn generate() -> Result<String, RandomFailed> {
    let mut bytes = [0_u8; GENERATED_BYTES];
    aws_lc_rs::rand::fill(&mut bytes).map_err(|_| RandomFailed)?;
    Ok(format!("{PREFIX}{}", STANDARD.encode(bytes)))
}

/// A key a client gives (`hmac_key`): 16 to 256 printable ASCII characters, no spaces.
pub fn check(raw: &str) -> Result<(), FieldError> {
    let chars = raw.chars().count();
    if !(MIN_CHARS..=MAX_CHARS).contains(&chars) {
        return Err(FieldError::not_valid(
            "hmac_key",
            format!("must be {MIN_CHARS} to {MAX_CHARS} characters"),
        ));
    }
    if !raw.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(FieldError::not_valid(
            "hmac_key",
            "must be printable ASCII without spaces",
        ));
    }
    // A key in the Standard Webhooks form must be one, or receivers' libraries, which
    // decode it, could never verify a delivery.
    if let Some(encoded) = raw.strip_prefix(PREFIX)
        && STANDARD
            .decode(encoded)
            .map_or(true, |bytes| bytes.is_empty())
    {
        return Err(FieldError::not_valid(
            "hmac_key",
            "a key starting with whsec_ must continue in base64",
        ));
    }
    Ok(())
}

/// The bytes a key signs with.
pub fn key_bytes(key: &str) -> Vec<u8> {
    key.strip_prefix(PREFIX)
        .and_then(|encoded| STANDARD.decode(encoded).ok())
        .filter(|bytes| !bytes.is_empty())
        .unwrap_or_else(|| key.as_bytes().to_vec())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_made_key_is_in_the_standard_form_and_new_each_time() {
        let (a, b) = (generate().unwrap(), generate().unwrap());
        assert_ne!(a, b);
        assert!(a.starts_with("whsec_"));
        assert_eq!(key_bytes(&a).len(), GENERATED_BYTES);
        assert_eq!(check(&a), Ok(()));
    }

    #[test]
    fn a_key_in_another_form_signs_with_its_own_bytes() {
        assert_eq!(key_bytes("a plain shared secret"), b"a plain shared secret");
        // `whsec_` with something that is not base64 is taken as it is, too.
        assert_eq!(key_bytes("whsec_not*base64!"), b"whsec_not*base64!");
    }

    #[test]
    fn a_given_key_is_bounded_and_printable() {
        for bad in [
            "short",
            &"x".repeat(257),
            "sixteen chars ok but spaced",
            "whsec_!!!!notbase64!!!!",
        ] {
            assert_eq!(check(bad).unwrap_err().property, "hmac_key", "{bad}");
        }
        assert_eq!(check("0123456789abcdef"), Ok(()));
    }
}
