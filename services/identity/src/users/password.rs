//! Users' passwords: argon2id, kept as PHC strings (`$argon2id$v=19$m=...`), so the
//! parameters a hash was made with travel with it and can be raised later.
//!
//! Hashing takes about 20 ms of one core and 19 MiB by design; callers run it on the
//! blocking pool, never on an async worker.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use std::sync::LazyLock;

/// OWASP's first recommended argon2id setting (2025): 19 MiB, two passes, one lane.
fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

#[derive(Debug, thiserror::Error)]
#[error("could not hash the password")]
pub struct HashFailed;

pub fn hash(password: &str) -> Result<String, HashFailed> {
    let salt = SaltString::generate(&mut OsRng);
    hasher()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|_| HashFailed)
}

/// A hash no password matches, checked when the address is unknown or has no password,
/// so that case costs the same time as a wrong password and the answer's timing does
/// not tell whether an address has an account.
static DECOY: LazyLock<Option<String>> = LazyLock::new(|| hash("coffer decoy password").ok());

/// Whether `password` is the one `stored` was made from; `None` stands for no user (or
/// none with a password), checked against a decoy all the same.
pub fn verify(password: &str, stored: Option<&str>) -> bool {
    let (phc, real) = match stored {
        Some(phc) => (phc, true),
        None => match DECOY.as_deref() {
            Some(decoy) => (decoy, false),
            None => return false,
        },
    };
    let Ok(parsed) = PasswordHash::new(phc) else {
        return false;
    };
    let ok = hasher()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok();
    ok && real
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        let stored = hash("correct horse battery").ok();
        assert!(
            stored
                .as_deref()
                .is_some_and(|s| s.starts_with("$argon2id$"))
        );
        assert!(verify("correct horse battery", stored.as_deref()));
        assert!(!verify("wrong horse battery", stored.as_deref()));
        assert!(!verify("coffer decoy password", None));
    }
}
