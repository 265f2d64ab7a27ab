//! A process's token at rest: sealed with the master keys in its row and found in clear in
//! no table and no file, while the partner still reads it by the process's uuid and the
//! token still opens the process. A row from before sealing reads as it is and is sealed
//! at the next start; a master-key rotation seals again; a missing key stops the start.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_testkit::TestApp;
use common::*;
use serde_json::Value;

async fn stored_token(app: &TestApp, uuid: &str) -> String {
    let sql = format!("SELECT token AS text FROM onboarding_processes WHERE uuid = '{uuid}'");
    texts(app, sql).await.remove(0)
}

/// The process as its partner reads it by uuid.
async fn read(app: &TestApp, partner: &Partner, uuid: &str) -> Value {
    let path = format!("/partner-onboarding-processes/{uuid}");
    let res = app.get(&path, &partner.token(app)).await;
    assert_eq!(res.status(), 201);
    res.json().await.unwrap()
}

async fn status_by_token(app: &TestApp, token: &str) -> u16 {
    let path = format!("/partner-onboarding-processes/tokens/{token}");
    app.get_anonymous(&path).await.status().as_u16()
}

/// A new process: its uuid and token.
async fn process(app: &TestApp, partner: &Partner) -> (String, String) {
    let body = request(&partner.configuration, "ann@example.org");
    let res = create(app, &partner.token(app), &body, None).await;
    assert_eq!(res.status(), 201);
    let created: Value = res.json().await.unwrap();
    let text = |name: &str| created[name].as_str().unwrap().to_owned();
    (text("uuid"), text("token"))
}

coffer_testkit::backend_tests! {
    async fn a_token_is_sealed_in_its_row_yet_shown_to_the_partner_and_opens_the_process(backend) {
        let m1 = master_keys(&[("m1", 1)], "m1");
        let app = spawn(backend, m1.clone()).await;
        let partner = Partner::new(&app).await;
        let (uuid, token) = process(&app, &partner).await;

        // Sealed under m1, bound to its process; in clear nowhere.
        let stored = stored_token(&app, &uuid).await;
        assert!(stored.starts_with("v1.m1."), "{stored}");
        let opened = m1.open(&format!("onboarding_processes/{uuid}/token"), &stored).unwrap();
        assert_eq!(opened.as_slice(), token.as_bytes());
        assert_eq!(stored_in_clear(&app, &token).await, Vec::<String>::new());

        assert_eq!(read(&app, &partner, &uuid).await["token"], token.as_str());
        assert_eq!(status_by_token(&app, &token).await, 201);
        let execute = format!("/partner-onboarding-processes/tokens/{token}/execute");
        let res = app.http.post(app.url(&execute)).send().await.unwrap();
        assert_eq!(res.status(), 201);
        let done: Value = res.json().await.unwrap();
        assert_eq!(done["status"], "completed");
        assert_eq!(done["token"], token.as_str());
        assert_eq!(read(&app, &partner, &uuid).await["status"], "completed");
        assert_eq!(stored_in_clear(&app, &token).await, Vec::<String>::new());
    }

    async fn a_token_stored_in_clear_reads_and_is_sealed_at_the_next_start(backend) {
        let m1 = master_keys(&[("m1", 1)], "m1");
        let app = spawn(backend, m1.clone()).await;
        let partner = Partner::new(&app).await;
        let (uuid, token) = process(&app, &partner).await;
        // The row as the previous version wrote it; the scan finds it (the positive control).
        let sql = format!("UPDATE onboarding_processes SET token = '{token}' WHERE uuid = '{uuid}'");
        assert_eq!(execute(&app, sql).await, 1);
        assert!(!stored_in_clear(&app, &token).await.is_empty());
        assert_eq!(read(&app, &partner, &uuid).await["token"], token.as_str());
        assert_eq!(status_by_token(&app, &token).await, 201);

        let app = restart(app, m1).await;
        assert!(stored_token(&app, &uuid).await.starts_with("v1.m1."));
        assert_eq!(stored_in_clear(&app, &token).await, Vec::<String>::new());
        assert_eq!(read(&app, &partner, &uuid).await["token"], token.as_str());
        assert_eq!(status_by_token(&app, &token).await, 201);

        // A rotation: m2 seals from the next start while m1 still opens; then m1 may go.
        let app = restart(app, master_keys(&[("m1", 1), ("m2", 2)], "m2")).await;
        assert!(stored_token(&app, &uuid).await.starts_with("v1.m2."));
        let app = restart(app, master_keys(&[("m2", 2)], "m2")).await;
        assert_eq!(read(&app, &partner, &uuid).await["token"], token.as_str());

        // Without the key that sealed it, the start stops and names the process.
        let mut refused = None;
        app.restart(|h| {
            let refused = &mut refused;
            async move {
                *refused = start(&h, master_keys(&[("m9", 9)], "m9")).await.err();
                Vec::new()
            }
        })
        .await;
        let refused = refused.expect("the start is refused").to_string();
        assert!(refused.contains(&uuid) && refused.contains("m2") && refused.contains("secrets.keys"), "{refused}");
    }
}
