//! Signing keys at rest: sealed with the master keys, never stored in plaintext, readable
//! across a master-key rotation, and refused, loudly, under the wrong master key.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use coffer_auth::SigningKey;
use coffer_identity::keys::store as keys;
use coffer_identity::keys::store::KeyRow;
use coffer_model::clock::Clock;
use coffer_secrets::MasterKey;
use common::*;
use serde_json::Value;

/// Master keys `kid` of 32 bytes `byte` each.
fn master_keys(keys: &[(&str, u8)], current: &str) -> Secrets {
    let keys = keys
        .iter()
        .map(|(kid, byte)| MasterKey::new(kid, &[*byte; 32]).unwrap())
        .collect();
    Secrets::new(keys, Some(current)).unwrap()
}

fn kid_of(token: &str) -> String {
    let header = token.split('.').next().unwrap();
    let header: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header)
            .unwrap(),
    )
    .unwrap();
    header["kid"].as_str().unwrap().to_owned()
}

async fn stored_keys(app: &TestApp) -> Vec<KeyRow> {
    app.store.query(keys::all).await.unwrap()
}

/// What a stored private key would look like in plaintext: its DER, the DER in base64,
/// a PEM armour, and the rsaEncryption header every RSA PKCS#8 key starts with (raw and
/// in base64).
fn plaintext_markers(der: &[u8]) -> Vec<Vec<u8>> {
    vec![
        der.to_vec(),
        STANDARD.encode(der).into_bytes(),
        b"-----BEGIN".to_vec(),
        vec![
            0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
        ],
        b"ANBgkqhkiG9w0BAQEFAASC".to_vec(),
    ]
}

/// Every marker found in what the database holds: on SQLite the bytes of its files
/// (write-ahead log included), on PostgreSQL the rows of the key table.
async fn find_plaintext(app: &TestApp, der: &[u8]) -> Vec<String> {
    let mut haystacks: Vec<(String, Vec<u8>)> = app
        .database_files()
        .into_iter()
        .map(|path| (path.display().to_string(), std::fs::read(&path).unwrap()))
        .collect();
    for row in stored_keys(app).await {
        haystacks.push((
            format!("row {}", row.kid),
            row.private_key_pkcs8.into_bytes(),
        ));
    }
    let mut found = Vec::new();
    for (name, bytes) in &haystacks {
        for (i, marker) in plaintext_markers(der).iter().enumerate() {
            if bytes.windows(marker.len()).any(|w| w == marker.as_slice()) {
                found.push(format!("marker {i} in {name}"));
            }
        }
    }
    found
}

/// A signing key stored the way identity stored them before sealing.
async fn insert_plaintext_key(app: &TestApp, kid: &str) -> Vec<u8> {
    let key = SigningKey::generate(kid).unwrap();
    let der = key.to_pkcs8().unwrap();
    let row = KeyRow {
        kid: kid.into(),
        private_key_pkcs8: STANDARD.encode(&der),
        created: app.clock.unix(),
        retired_at: None,
    };
    app.store
        .query(move |conn| keys::rotate_to(conn, &row))
        .await
        .unwrap();
    der
}

coffer_testkit::backend_tests! {
    async fn minted_tokens_leave_no_plaintext_private_key_in_the_database(backend) {
        let secrets = master_keys(&[("m1", 1)], "m1");
        let (app, admin) = spawn_with(backend, secrets.clone()).await;
        let tenant = tenant(&admin, "Alpine Aid").await;
        let t = client_token(&app, &tenant.client).await;
        assert_eq!(
            app.get(&format!("/organisations/{}", tenant.organisation), &t).await.status(),
            200
        );
        let rows = stored_keys(&app).await;
        assert_eq!(rows.len(), 1);
        assert!(rows[0].private_key_pkcs8.starts_with("v1.m1."), "sealed under m1");
        // The stored value opens (with the master key, in its row's context) to the very
        // key that signs; none of it, in any form, is in the database.
        let der = secrets
            .open(&format!("identity.signing_key:{}", rows[0].kid), &rows[0].private_key_pkcs8)
            .unwrap();
        assert!(SigningKey::from_pkcs8(rows[0].kid.clone(), &der).is_ok());
        assert_eq!(find_plaintext(&app, &der).await, Vec::<String>::new());
    }

    async fn a_plaintext_key_from_before_sealing_is_sealed_and_replaced_at_start(backend) {
        let secrets = master_keys(&[("m1", 1)], "m1");
        let (app, admin) = spawn_with(backend, secrets.clone()).await;
        let tenant = tenant(&admin, "Alpine Aid").await;
        // The previous version wrote this row, and it signs.
        let legacy = insert_plaintext_key(&app, "legacy").await;
        // The scan finds a plaintext key when there is one (the positive control).
        let found = find_plaintext(&app, &legacy).await;
        assert!(found.iter().any(|f| f.contains("marker 1")), "{found:?}");
        // The running process picks it up at its next reload, and signs with it.
        let mut before = client_token(&app, &tenant.client).await;
        for _ in 0..100 {
            if kid_of(&before) == "legacy" {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            before = client_token(&app, &tenant.client).await;
        }
        assert_eq!(kid_of(&before), "legacy");

        let (app, _) = restart(app, secrets).await;
        let rows = stored_keys(&app).await;
        assert_eq!(rows.len(), 3, "the first key, the legacy one and its replacement");
        assert!(rows.iter().all(|r| r.private_key_pkcs8.starts_with("v1.m1.")));
        let signing: Vec<_> = rows.iter().filter(|r| r.retired_at.is_none()).collect();
        assert_eq!(signing.len(), 1);
        assert_ne!(signing[0].kid, "legacy", "an exposed key stops signing");
        assert_eq!(find_plaintext(&app, &legacy).await, Vec::<String>::new());
        // Its tokens still verify until they expire.
        let path = format!("/organisations/{}", tenant.organisation);
        assert_eq!(app.get(&path, &before).await.status(), 200);
        let after = client_token(&app, &tenant.client).await;
        assert_eq!(app.get(&path, &after).await.status(), 200);
    }

    async fn tokens_verify_across_a_master_key_rotation_and_restarts(backend) {
        let (app, admin) = spawn_with(backend, master_keys(&[("m1", 1)], "m1")).await;
        let tenant = tenant(&admin, "Alpine Aid").await;
        let path = format!("/organisations/{}", tenant.organisation);
        let before = client_token(&app, &tenant.client).await;

        // Step 2 of the procedure: m2 seals, m1 still opens; the start seals again.
        let (app, admin) = restart(app, master_keys(&[("m1", 1), ("m2", 2)], "m2")).await;
        let rows = stored_keys(&app).await;
        assert!(rows.iter().all(|r| r.private_key_pkcs8.starts_with("v1.m2.")), "resealed");
        assert_eq!(app.get(&path, &before).await.status(), 200);
        let during = client_token(&app, &tenant.client).await;
        assert_eq!(app.get(&path, &during).await.status(), 200);
        // A signing key made now is sealed under the current master key.
        admin.rotate_signing_key().await.unwrap();
        assert!(stored_keys(&app).await.iter().all(|r| r.private_key_pkcs8.starts_with("v1.m2.")));

        // Step 3: m1 is gone; everything still opens and verifies.
        let (app, _) = restart(app, master_keys(&[("m2", 2)], "m2")).await;
        app.clock.advance(time::Duration::seconds(1));
        let after = client_token(&app, &tenant.client).await;
        for t in [&before, &during, &after] {
            assert_eq!(app.get(&path, t).await.status(), 200);
        }
    }

    async fn the_wrong_master_key_stops_identity_and_says_why(backend) {
        let (app, _) = spawn_with(backend, master_keys(&[("m1", 1)], "m1")).await;
        let (app, _) = restart(app, master_keys(&[("m1", 1)], "m1")).await;
        // A keyring without the key that sealed the rows, and one whose m1 is another key
        // (a mistyped secret).
        let mut errors = Vec::new();
        app.restart(|h| {
            let errors = &mut errors;
            async move {
                for wrong in [master_keys(&[("m9", 9)], "m9"), master_keys(&[("m1", 7)], "m1")] {
                    let err = start_identity(&h, wrong).await.err().expect("refused");
                    errors.push(err.to_string());
                }
                Vec::new()
            }
        })
        .await;
        assert!(errors[0].contains("master key m1") && errors[0].contains("not configured"), "{}", errors[0]);
        assert!(errors[1].contains("does not open") && errors[1].contains("secrets.keys"), "{}", errors[1]);
    }
}
