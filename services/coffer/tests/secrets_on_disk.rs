//! What `coffer dev` leaves on disk: a data directory only its owner can read, secrets in
//! it sealed under the master keys, and a master-key rotation that keeps every token and
//! every stored secret once the old key is gone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use common::fixtures::Client;
use common::*;
use serde_json::Value;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

fn everything_in(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(everything_in(&path));
        }
        found.push(path);
    }
    found
}

fn key(byte: u8) -> String {
    STANDARD.encode([byte; 32])
}

/// The start of every RSA private key in PKCS#8, raw and in base64, and a PEM armour.
const MARKERS: [&[u8]; 3] = [
    &[
        0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
    ],
    b"ANBgkqhkiG9w0BAQEFAASC",
    b"-----BEGIN",
];

fn plaintext_keys_in(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for path in everything_in(dir).into_iter().filter(|p| p.is_file()) {
        let bytes = std::fs::read(&path).unwrap();
        for marker in MARKERS {
            if bytes.windows(marker.len()).any(|w| w == marker) {
                found.push(format!("{} holds {:?}", path.display(), marker));
            }
        }
    }
    found
}

#[tokio::test]
async fn the_data_dir_is_owner_only_under_a_loose_umask_and_holds_no_plaintext_key() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // An install of the previous version: a loose directory, a plaintext fingerprint key.
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let legacy = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    std::fs::write(data.join("fingerprint.key"), legacy).unwrap();
    std::fs::set_permissions(
        data.join("fingerprint.key"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();

    let mut server = start_under_umask(&data, "000");
    let c = credentials(&data, &mut server).await;
    let t = demo_token(&c).await;
    let org = c["organisation_uuid"].as_str().unwrap();
    let (status, _) = get(
        c["base_url"].as_str().unwrap(),
        &format!("/organisations/{org}"),
        &t,
    )
    .await;
    assert_eq!(status, 200);

    assert_eq!(mode(&data), 0o700, "the data directory");
    let files = everything_in(&data);
    for name in [
        "identity.db",
        "identity.db-wal",
        "identity.db-shm",
        "payments.db",
        "billing.db",
        "bus.db",
        "credentials.json",
        "master-keys.json",
        "fingerprint.key",
    ] {
        assert!(files.contains(&data.join(name)), "{name} in {files:?}");
    }
    for file in &files {
        let expected = if file.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(file), expected, "{}", file.display());
    }
    let fingerprint = std::fs::read_to_string(data.join("fingerprint.key")).unwrap();
    assert!(fingerprint.starts_with("v1."), "sealed: {fingerprint}");
    assert!(!fingerprint.contains(legacy));

    // The scan would see a key: every RSA PKCS#8 key carries the markers (the positive
    // control); no file of the data directory does.
    let der = coffer_auth::SigningKey::generate("control")
        .unwrap()
        .to_pkcs8()
        .unwrap();
    let encoded = STANDARD.encode(&der);
    assert!(der.windows(MARKERS[0].len()).any(|w| w == MARKERS[0]));
    assert!(encoded.contains(std::str::from_utf8(MARKERS[1]).unwrap()));
    assert_eq!(plaintext_keys_in(&data), Vec::<String>::new());
}

#[tokio::test]
async fn tokens_survive_a_master_key_rotation_and_a_wrong_key_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (k1, k2) = (format!("k1:{}", key(1)), format!("k2:{}", key(2)));
    let path = |c: &Value| {
        format!(
            "/organisations/{}",
            c["organisation_uuid"].as_str().unwrap()
        )
    };
    let before = {
        let mut server = start_with(&data, &[("COFFER_SECRETS__KEYS", &k1)]);
        let c = credentials(&data, &mut server).await;
        demo_token(&c).await
    };
    assert!(
        !data.join("master-keys.json").exists(),
        "keys from the environment are not written"
    );

    let both = format!("{k1},{k2}");
    let during = {
        let env = [
            ("COFFER_SECRETS__KEYS", both.as_str()),
            ("COFFER_SECRETS__CURRENT", "k2"),
        ];
        let mut server = start_with(&data, &env);
        let c = credentials(&data, &mut server).await;
        let base = c["base_url"].as_str().unwrap();
        assert_eq!(get(base, &path(&c), &before).await.0, 200);
        let during = demo_token(&c).await;
        assert_eq!(get(base, &path(&c), &during).await.0, 200);
        during
    };
    let fingerprint = std::fs::read_to_string(data.join("fingerprint.key")).unwrap();
    assert!(
        fingerprint.starts_with("v1.k2."),
        "sealed again: {fingerprint}"
    );

    {
        let mut server = start_with(&data, &[("COFFER_SECRETS__KEYS", &k2)]);
        let c = credentials(&data, &mut server).await;
        let base = c["base_url"].as_str().unwrap();
        let after = demo_token(&c).await;
        for t in [&before, &during, &after] {
            assert_eq!(get(base, &path(&c), t).await.0, 200);
        }
    }

    // k1 alone no longer opens what k2 sealed.
    let out = run_to_exit(&data, &[("COFFER_SECRETS__KEYS", &k1)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("master key k2") && stderr.contains("not configured"),
        "{stderr}"
    );
    let out = run_to_exit(&data, &[("COFFER_SECRETS__KEYS", "k2:c2hvcnQ=")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("COFFER_SECRETS__KEYS") && stderr.contains("32 bytes"),
        "{stderr}"
    );
}

#[tokio::test]
async fn admin_rotates_the_master_key_of_the_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let before = {
        let mut server = start(&data);
        let c = credentials(&data, &mut server).await;
        demo_token(&c).await
    };
    let made: Value =
        serde_json::from_slice(&std::fs::read(data.join("master-keys.json")).unwrap()).unwrap();
    let first = made["keys"]
        .as_str()
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .to_owned();

    let rotated = admin(&data, &["secrets", "rotate"]);
    let kid = rotated["kid"].as_str().unwrap();
    assert_ne!(kid, first);
    let keys: Value =
        serde_json::from_slice(&std::fs::read(data.join("master-keys.json")).unwrap()).unwrap();
    assert_eq!(keys["current"], kid);
    assert_eq!(keys["keys"].as_str().unwrap().split(',').count(), 2);
    assert_eq!(mode(&data.join("master-keys.json")), 0o600);

    let mut server = start(&data);
    let c = credentials(&data, &mut server).await;
    let org = c["organisation_uuid"].as_str().unwrap();
    let base = c["base_url"].as_str().unwrap();
    assert_eq!(
        get(base, &format!("/organisations/{org}"), &before).await.0,
        200
    );
    let fingerprint = std::fs::read_to_string(data.join("fingerprint.key")).unwrap();
    assert!(
        fingerprint.starts_with(&format!("v1.{kid}.")),
        "{fingerprint}"
    );

    // A new entry for a distributed install is printed, and stored nowhere.
    let entry = admin(&data, &["secrets", "new-key"]);
    let printed = entry["entry"].as_str().unwrap();
    assert!(printed.starts_with(&format!("{}:", entry["kid"].as_str().unwrap())));
    let stored = std::fs::read_to_string(data.join("master-keys.json")).unwrap();
    assert!(!stored.contains(printed));
}

/// Sends `body` to `path` under Idempotency-Key `key`: (status, body, replayed).
async fn keyed(caller: &Client, path: &str, key: &str, body: &Value) -> (u16, Value, bool) {
    let res = caller
        .http
        .post(format!("{}{path}", caller.base))
        .bearer_auth(&caller.token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let replayed = res.headers().contains_key("idempotent-replayed");
    (status, res.json().await.unwrap(), replayed)
}

/// `made`, a client `coffer admin` made, calling where `beside` calls.
async fn as_client(beside: &Client, made: &Value) -> Client {
    let (id, secret) = (&made["client_id"], &made["client_secret"]);
    Client {
        token: token(&beside.base, id.as_str().unwrap(), secret.as_str().unwrap()).await,
        ..beside.clone()
    }
}

/// Files of the data directory that hold a value sealed under master key `kid`.
fn sealed_under(dir: &Path, kid: &str) -> Vec<String> {
    let marker = format!("v1.{kid}.");
    everything_in(dir)
        .into_iter()
        .filter(|p| p.is_file())
        .filter(|p| {
            let bytes = std::fs::read(p).unwrap();
            bytes.windows(marker.len()).any(|w| w == marker.as_bytes())
        })
        .map(|p| p.display().to_string())
        .collect()
}

#[tokio::test]
async fn every_stored_secret_outlives_the_master_key_it_was_sealed_under() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (k1, k2) = (format!("k1:{}", key(1)), format!("k2:{}", key(2)));
    let both = format!("{k1},{k2}");

    // Under k1: a webhook with a password, an SFTP source (its server need not exist), and
    // a partner's onboarding process, the webhook and the process made under keys.
    let mut server = start_with(&data, &[("COFFER_SECRETS__KEYS", &k1)]);
    let c = credentials(&data, &mut server).await;
    let a = Client::demo(&c).await;
    let org = c["organisation_uuid"].as_str().unwrap();
    let account = c["account_uuids"][0].as_str().unwrap();
    let hook_body = serde_json::json!({"organisation_uuid": org,
        "endpoint": "https://hooks.example.org/coffer", "username": "hooks",
        "password": "hook-password"});
    let (status, hook, _) = keyed(&a, "/webhooks", "hook-1", &hook_body).await;
    assert_eq!(status, 201, "{hook}");
    let blueprint = a
        .made(
            "/reconciliation/blueprints",
            serde_json::json!({"name": "Bank", "organisation_uuid": org,
                "account_uuid": account, "message_type": "camt.053",
                "processing": "match_settlement_payouts"}),
        )
        .await;
    let source = a
        .made(
            "/reconciliation/sources",
            serde_json::json!({"name": "Bank server", "organisation_uuid": org,
                "account_uuid": account, "type": "sftp", "blueprint_uuid": blueprint["uuid"],
                "sftp": {"host": "sftp.bank.example", "username": "charity",
                    "password": "sftp-password", "directory": "/out",
                    "host_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f"}}),
        )
        .await;
    let partner = admin(
        &data,
        &[
            "partner",
            "create",
            "--name",
            "Rotating CRM",
            "--redirect-uri",
            "https://crm.example/cb",
        ],
    );
    let configuration = admin(
        &data,
        &[
            "onboarding-configuration",
            "create",
            "--partner",
            partner["uuid"].as_str().unwrap(),
            "--account-label",
            "Donations",
        ],
    );
    let p = as_client(&a, &partner).await;
    let address = serde_json::json!({"address_line1": "Weg 1", "postal_code": "3000",
        "city": "Bern", "country": "CH"});
    let process_body = serde_json::json!({"external_id": "crm-7",
        "onboarding_configuration_uuid": configuration["uuid"],
        "user": {"email": "rotating@example.org", "first_name": "Ro", "last_name": "Tating"},
        "organisation": {"name": "Rotating Aid", "main_address": address,
            "billing_address": address}});
    let (status, process, _) = keyed(
        &p,
        "/partner-onboarding-processes",
        "process-1",
        &process_body,
    )
    .await;
    assert_eq!(status, 201, "{process}");
    drop(server);
    assert!(
        !sealed_under(&data, "k1").is_empty(),
        "the scan finds k1's values"
    );

    // k2 becomes current while k1 still opens; then k1 goes.
    {
        let env = [
            ("COFFER_SECRETS__KEYS", both.as_str()),
            ("COFFER_SECRETS__CURRENT", "k2"),
        ];
        let mut server = start_with(&data, &env);
        credentials(&data, &mut server).await;
    }
    assert_eq!(sealed_under(&data, "k1"), Vec::<String>::new());
    let mut server = start_with(&data, &[("COFFER_SECRETS__KEYS", &k2)]);
    let c = credentials(&data, &mut server).await;
    let a = Client::demo(&c).await;
    let p = as_client(&a, &partner).await;

    // The list shows no keys, yet opens every endpoint's; one endpoint shows its key.
    let uuid = hook["uuid"].as_str().unwrap();
    let listed = a.read("/webhooks").await;
    assert!(
        listed.as_array().unwrap().iter().any(|h| h["uuid"] == uuid),
        "{listed}"
    );
    assert_eq!(
        a.read(&format!("/webhooks/{uuid}")).await["hmac_key"],
        hook["hmac_key"]
    );
    let (status, again, replayed) = keyed(&a, "/webhooks", "hook-1", &hook_body).await;
    assert_eq!((status, replayed), (201, true), "{again}");
    assert_eq!(again, hook);

    let sftp = a
        .read(&format!(
            "/reconciliation/sources/{}",
            source["uuid"].as_str().unwrap()
        ))
        .await;
    assert_eq!(sftp["sftp"]["auth"], "password", "{sftp}");
    assert_eq!(sftp["sftp"]["host"], "sftp.bank.example");

    let (status, again, replayed) = keyed(
        &p,
        "/partner-onboarding-processes",
        "process-1",
        &process_body,
    )
    .await;
    assert_eq!((status, replayed), (201, true), "{again}");
    assert_eq!(again["token"], process["token"]);
    let path = format!(
        "/partner-onboarding-processes/{}",
        process["uuid"].as_str().unwrap()
    );
    let (status, text) = p.call("GET", &path, None).await;
    assert_eq!(status, 201, "{text}");
    let read: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(read["token"], process["token"]);
}
