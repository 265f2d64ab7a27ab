//! `coffer-payments` as a deployment starts it: the master key is checked before anything
//! else happens.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_coffer-payments");

#[test]
fn serve_refuses_to_start_without_a_master_key_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/payments.db", dir.path().display());
    let out = Command::new(BIN)
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("COFFER_DATABASE_URL", &db)
        .env("COFFER_KAFKA__BROKERS", "127.0.0.1:9")
        .env("COFFER_PAYMENTS__PUBLIC_BASE_URL", "http://127.0.0.1:9")
        .env(
            "COFFER_PAYMENTS__FINGERPRINT_KEY",
            "0123456789abcdef0123456789abcdef",
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("secrets.keys"), "{stderr}");
}
