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

#[test]
fn migrate_needs_only_the_database_and_serve_names_what_it_needs_besides() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/payments.db", dir.path().display());
    let run = |command: &str, env: &[(&str, &str)]| {
        let mut cmd = Command::new(BIN);
        cmd.arg(command)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("COFFER_DATABASE_URL", &db);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), stderr)
    };
    // A migration Job is handed the database and nothing else: no fingerprint key.
    let (code, stderr) = run("migrate", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    // Given, a setting must still be well formed.
    let (code, stderr) = run(
        "migrate",
        &[("COFFER_PAYMENTS__PUBLIC_BASE_URL", "ftp://x")],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("payments.public_base_url"), "{stderr}");
    let (code, stderr) = run("migrate", &[("COFFER_PAYMENTS__FINGERPRINT_KEY", "short")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("payments.fingerprint_key"), "{stderr}");
    // Serving needs both.
    let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    let keys = format!("a:{key}");
    let serving = [
        ("COFFER_KAFKA__BROKERS", "127.0.0.1:9"),
        ("COFFER_SECRETS__KEYS", keys.as_str()),
    ];
    let (code, stderr) = run("serve", &serving);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("payments.public_base_url"), "{stderr}");
    let with_url: Vec<_> = serving
        .iter()
        .copied()
        .chain([(
            "COFFER_PAYMENTS__PUBLIC_BASE_URL",
            "https://api.example.org",
        )])
        .collect();
    let (code, stderr) = run("serve", &with_url);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("payments.fingerprint_key"), "{stderr}");
}
