//! What `coffer dev` leaves on disk: a data directory only its owner can read, secrets in
//! it sealed under the master keys, and a master-key rotation that keeps every token.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
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
