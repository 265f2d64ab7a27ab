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
/// The master key the test seals with, as an install's settings give it.
const MASTER: &str = "conn:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const KEY: &str = "sk_test_51HcofferSecretKeyForTests9876";
const FIRST_WEBHOOK: &str = "whsec_firstSigningSecret1234";
const SECOND_WEBHOOK: &str = "whsec_secondSigningSecret5678";

/// `coffer admin connector-account set` of the account named "main", with `stdin` as its
/// standard input.
fn set(data_dir: &Path, mode: &str, stdin: &str) -> Output {
    set_named(data_dir, "main", mode, stdin)
}

fn set_named(data_dir: &Path, name: &str, mode: &str, stdin: &str) -> Output {
    let mut child = Command::new(COFFER)
        .args(["admin", "--data-dir"])
        .arg(data_dir)
        .args([
            "connector-account",
            "set",
            "--account",
            ACCOUNT,
            "--name",
            name,
        ])
        .args(["--mode", mode])
        .env("COFFER_SECRETS__KEYS", MASTER)
        .env_remove("COFFER_SECRETS__CURRENT")
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

fn payments(data_dir: &Path) -> Store {
    let url = format!("sqlite://{}", data_dir.join("payments.db").display());
    Store::connect(&url, &PoolOptions::default()).unwrap()
}

async fn changes(data_dir: &Path, uuid: &str) -> Vec<(String, String, String)> {
    let db = payments(data_dir);
    let uuid = uuid.to_owned();
    db.query(move |db| store::changes(db, &uuid))
        .await
        .unwrap()
        .into_iter()
        .map(|c| (c.change.as_str().to_owned(), c.secret_key_hint, c.actor))
        .collect()
}

fn files_hold(dir: &Path, secret: &str) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let path = entry.unwrap().path();
        if path.is_dir() {
            return files_hold(&path, secret);
        }
        std::fs::read(&path)
            .unwrap()
            .windows(secret.len())
            .any(|w| w == secret.as_bytes())
    })
}

/// What a sealed column of the connector account opens to, under its own column's context.
async fn opened(data_dir: &Path, uuid: &str, column: &str) -> Option<String> {
    let db = payments(data_dir);
    let (account, name) = (ACCOUNT.to_owned(), "main".to_owned());
    let row = db
        .query(move |db| store::find(db, &account, &name))
        .await
        .unwrap()
        .unwrap();
    let sealed = match column {
        "secret_key" => Some(row.secret_key),
        "webhook_secret" => row.webhook_secret,
        _ => row.previous_webhook_secret,
    }?;
    let secrets = coffer_secrets::Secrets::parse(MASTER, None).unwrap();
    let context = format!("payments.connector_account.{column}:{uuid}");
    Some(String::from_utf8(secrets.open(&context, &sealed).unwrap().to_vec()).unwrap())
}

#[tokio::test]
async fn keys_are_sealed_checked_against_the_mode_rotated_and_logged() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    // The command makes no database of its own: it needs one a service made.
    let early = set(data, "test", &format!("{KEY}\n"));
    assert!(!early.status.success());
    assert!(String::from_utf8_lossy(&early.stderr).contains("does not exist"));
    let migrated = Command::new(COFFER)
        .args(["migrate", "--data-dir"])
        .arg(data)
        .output()
        .unwrap();
    assert!(
        migrated.status.success(),
        "{}",
        String::from_utf8_lossy(&migrated.stderr)
    );

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
    let refused = set(data, "test", "sk_live_51HcofferLiveKeyForTests00\n");
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("secret_key") && said.contains("a test account takes a test key"),
        "{said}"
    );
    assert!(
        !said.contains("sk_live_51HcofferLiveKeyForTests00"),
        "the refusal repeats the key: {said}"
    );
    // Nor does an account change its mode.
    let moved = set(data, "live", "sk_live_51HcofferLiveKeyForTests00\n");
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

    // Each value opens under its own column's context: the rotated-out secret was sealed
    // again for the column it moved to.
    assert_eq!(
        opened(data, &uuid, "secret_key").await.as_deref(),
        Some(KEY)
    );
    assert_eq!(
        opened(data, &uuid, "webhook_secret").await.as_deref(),
        Some(SECOND_WEBHOOK)
    );
    assert_eq!(
        opened(data, &uuid, "previous_webhook_secret")
            .await
            .as_deref(),
        Some(FIRST_WEBHOOK)
    );
    // The same secret again changes nothing, and keeps the one before in the rotation.
    let again = answer(&set(data, "test", &format!("\n{SECOND_WEBHOOK}\n")));
    assert_eq!(again["changes"], serde_json::json!([]));
    assert_eq!(
        opened(data, &uuid, "previous_webhook_secret")
            .await
            .as_deref(),
        Some(FIRST_WEBHOOK)
    );

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

    // A new account needs its key (an empty first line keeps none).
    let child = set_named(data, "second", "test", "\n");
    assert!(!child.status.success());
    assert!(String::from_utf8_lossy(&child.stderr).contains("needs its secret key"));
}
