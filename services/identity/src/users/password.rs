//! Users' passwords: argon2id, kept as PHC strings (`$argon2id$v=19$m=...`), so the
//! parameters a hash was made with travel with it and can be raised later.
//!
//! Hashing takes about 20 ms of one core and 19 MiB by design. It runs on the blocking
//! pool, never on an async worker, and at most [`AT_ONCE`] at a time per process: a sign-in
//! page costs nothing to post, so without a bound a burst of posts would take memory by
//! the 19 MiB until the process is killed (and with it the token endpoint). A post that
//! cannot get a turn within [`WAIT`] is answered "try again later".

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use std::sync::LazyLock;
use std::time::Duration;

use tokio::sync::Semaphore;

/// Hashes running at once in one process: 4 × 19 MiB at most.
pub const AT_ONCE: usize = 4;
/// How long a hash waits for its turn.
pub const WAIT: Duration = Duration::from_secs(3);
static TURNS: Semaphore = Semaphore::const_new(AT_ONCE);

/// No turn came within [`WAIT`]: too many sign-ins at once.
#[derive(Debug, thiserror::Error)]
#[error("too many passwords are being checked at once; try again shortly")]
pub struct Busy;

async fn in_turn<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, Busy> {
    let _turn = tokio::time::timeout(WAIT, TURNS.acquire())
        .await
        .map_err(|_| Busy)?
        .map_err(|_| Busy)?;
    tokio::task::spawn_blocking(work).await.map_err(|_| Busy)
}

/// [`hash`] in its turn, on the blocking pool.
pub async fn hash_in_turn(password: String) -> Result<Result<String, HashFailed>, Busy> {
    in_turn(move || hash(&password)).await
}

/// [`verify`] in its turn, on the blocking pool.
pub async fn verify_in_turn(password: String, stored: Option<String>) -> Result<bool, Busy> {
    in_turn(move || verify(&password, stored.as_deref())).await
}

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
