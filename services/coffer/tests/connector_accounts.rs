//! `coffer admin connector-account set`: a provider's keys kept sealed, refused when their
//! prefix says another mode than the account's, rotated with the webhook secret before
//! still verifying, and every change in the change log, which names no secret.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use coffer_payments::connector_accounts::store;
use coffer_store::{PoolOptions, Store};
use common::COFFER;
use serde_json::Value;

const ACCOUNT: &str = "0b7c4b1e-2f7d-4a51-9d0e-0d3c1f0e6a11";
const KEY: &str = "sk_test_51HcofferSecretKeyForTests9876";
const FIRST_WEBHOOK: &str = "whsec_firstSigningSecret1234";
const SECOND_WEBHOOK: &str = "whsec_secondSigningSecret5678";

/// `coffer admin connector-account set` with `stdin` as its standard input.
fn set(data_dir: &Path, mode: &str, stdin: &str) -> Output {
    let mut child = Command::new(COFFER)
        .args(["admin", "--data-dir"])
        .arg(data_dir)
        .args([
            "connector-account",
            "set",
            "--account",
            ACCOUNT,
            "--name",
            "main",
        ])
        .args(["--mode", mode])
        .env_remove("COFFER_SECRETS__KEYS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn answer(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for secret in [KEY, FIRST_WEBHOOK, SECOND_WEBHOOK] {
        assert!(!text.contains(secret), "the answer shows a secret: {text}");
    }
    serde_json::from_slice(&out.stdout).unwrap()
}

async fn changes(data_dir: &Path, uuid: &str) -> Vec<(String, String, String)> {
    let url = format!("sqlite://{}", data_dir.join("payments.db").display());
    let db = Store::connect(&url, &PoolOptions::default()).unwrap();
    let uuid = uuid.to_owned();
    db.query(move |db| store::changes(db, &uuid))
        .await
        .unwrap()
        .into_iter()
        .map(|c| (c.change, c.secret_key_hint, c.actor))
        .collect()
}

fn files_hold(dir: &Path, secret: &str) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let path = entry.unwrap().path();
        path.is_file()
            && std::fs::read(&path)
                .unwrap()
                .windows(secret.len())
                .any(|w| w == secret.as_bytes())
    })
}

#[tokio::test]
async fn keys_are_sealed_checked_against_the_mode_rotated_and_logged() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();

    let made = answer(&set(data, "test", &format!("{KEY}\n{FIRST_WEBHOOK}\n")));
    assert_eq!(made["secret_key_hint"], "sk_test_...9876");
    assert_eq!(
        (made["mode"].as_str(), made["provider"].as_str()),
        (Some("test"), Some("stripe"))
    );
    assert_eq!(made["webhook_secrets"], 1);
    assert_eq!(
        made["changes"],
        serde_json::json!(["created", "webhook_secret_set"])
    );
    let uuid = made["uuid"].as_str().unwrap().to_owned();
    for secret in [KEY, FIRST_WEBHOOK] {
        assert!(
            !files_hold(data, secret),
            "a secret lies in the data directory as it is"
        );
    }

    // A live key in a test account is refused, and nothing changes.
    let refused = set(data, "test", "sk_live_51HcofferLiveKey0000\n");
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("secret_key") && said.contains("a test account takes a test key"),
        "{said}"
    );
    assert!(
        !said.contains("sk_live_51HcofferLiveKey0000"),
        "the refusal repeats the key: {said}"
    );
    // Nor does an account change its mode.
    let moved = set(data, "live", "sk_live_51HcofferLiveKey0000\n");
    assert!(!moved.status.success());
    assert!(String::from_utf8_lossy(&moved.stderr).contains("keeps its provider and mode"));

    // A new webhook secret; the key is kept (an empty first line), the secret before still verifies.
    let rotated = answer(&set(data, "test", &format!("\n{SECOND_WEBHOOK}\n")));
    assert_eq!(rotated["uuid"], uuid.as_str());
    assert_eq!(
        rotated["changes"],
        serde_json::json!(["webhook_secret_rotated"])
    );
    assert_eq!(rotated["webhook_secrets"], 2);
    assert!(!files_hold(data, SECOND_WEBHOOK));

    let log = changes(data, &uuid).await;
    let names: Vec<_> = log.iter().map(|(change, _, _)| change.as_str()).collect();
    assert_eq!(
        names,
        ["created", "webhook_secret_set", "webhook_secret_rotated"]
    );
    assert!(
        log.iter()
            .all(|(_, hint, actor)| hint == "sk_test_...9876" && actor.starts_with("coffer admin"))
    );

    // A new account needs its key.
    let child = Command::new(COFFER)
        .args(["admin", "--data-dir"])
        .arg(data)
        .args([
            "connector-account",
            "set",
            "--account",
            ACCOUNT,
            "--name",
            "second",
            "--mode",
            "test",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!child.status.success());
    assert!(String::from_utf8_lossy(&child.stderr).contains("needs its secret key"));
}
