//! `POST /partner-onboarding-processes` under an Idempotency-Key (API.md, Conventions):
//! thirty racing requests with one key and body make one process and all answer it, a
//! later one is a replay that still shows the token, another body under the key is 409,
//! and the stored answer keeps the token no more in clear than the process's row does; a
//! master-key rotation seals it again at start, and one no configured key opens is dropped.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::Value;

const KEY: &str = "crm-11-first-try";

coffer_testkit::backend_tests! {
    async fn racing_creates_under_one_key_make_one_process(backend) {
        let app = spawn(backend, master_keys(&[("m1", 1)], "m1")).await;
        let partner = Partner::new(&app).await;
        let token = partner.token(&app);
        let body = request(&partner.configuration, "ann@example.org");

        let mut racing = Vec::new();
        for _ in 0..30 {
            let (http, url) = (app.http.clone(), app.url("/partner-onboarding-processes"));
            let (token, body) = (token.clone(), body.clone());
            racing.push(tokio::spawn(async move {
                let res = http.post(url).bearer_auth(token).header("Idempotency-Key", KEY)
                    .json(&body).send().await.unwrap();
                let status = res.status().as_u16();
                let replayed = res.headers().contains_key("idempotent-replayed");
                (status, replayed, res.json::<Value>().await.unwrap())
            }));
        }
        let mut answers = Vec::new();
        for r in racing {
            answers.push(r.await.unwrap());
        }
        assert!(answers.iter().all(|(status, _, _)| *status == 201), "{answers:?}");
        let first = &answers[0].2;
        for (_, _, answer) in &answers {
            assert_eq!(answer, first, "every answer is the one process");
        }
        assert_eq!(answers.iter().filter(|(_, replayed, _)| !replayed).count(), 1);
        let count = texts(&app, "SELECT CAST(COUNT(*) AS TEXT) AS text FROM onboarding_processes".into()).await;
        assert_eq!(count, ["1"]);

        // Later, the same: a replay, with the token.
        let res = create(&app, &token, &body, Some(KEY)).await;
        assert_eq!(res.status(), 201);
        assert_eq!(res.headers()["idempotent-replayed"], "true");
        let again: Value = res.json().await.unwrap();
        assert_eq!(&again, first);
        let process_token = first["token"].as_str().unwrap();
        assert_eq!(process_token.len(), 43);

        // Another body under the key is refused; another partner's key is its own.
        let other = request(&partner.configuration, "bob@example.org");
        assert_eq!(create(&app, &token, &other, Some(KEY)).await.status(), 409);
        let second = Partner::new(&app).await;
        let theirs = request(&second.configuration, "ann@example.org");
        let res = create(&app, &second.token(&app), &theirs, Some(KEY)).await;
        assert_eq!(res.status(), 201);
        assert!(!res.headers().contains_key("idempotent-replayed"));
        let theirs: Value = res.json().await.unwrap();
        assert_ne!(theirs["uuid"], first["uuid"]);

        // The stored answer is sealed as the row is: the token is in clear nowhere.
        let stored = texts(&app, "SELECT response AS text FROM idempotency_keys".into()).await;
        assert_eq!(stored.len(), 2);
        assert!(stored.iter().all(|s| s.starts_with("v1.m1.")), "{stored:?}");
        assert_eq!(stored_in_clear(&app, process_token).await, Vec::<String>::new());
    }
    async fn a_stored_answer_is_sealed_again_after_a_rotation_and_one_no_key_opens_is_dropped(backend) {
        let app = spawn(backend, master_keys(&[("m1", 1)], "m1")).await;
        let partner = Partner::new(&app).await;
        let body = request(&partner.configuration, "ann@example.org");
        let res = create(&app, &partner.token(&app), &body, Some(KEY)).await;
        assert_eq!(res.status(), 201);
        let first: Value = res.json().await.unwrap();
        let stored = texts(&app, "SELECT response AS text FROM idempotency_keys".into()).await;
        assert!(stored.len() == 1 && stored[0].starts_with("v1.m1."), "{stored:?}");

        // m2 seals from the next start while m1 still opens; then m1 goes, and the replay
        // still answers the first process with its token.
        let app = restart(app, master_keys(&[("m1", 1), ("m2", 2)], "m2")).await;
        let stored = texts(&app, "SELECT response AS text FROM idempotency_keys".into()).await;
        assert!(stored.len() == 1 && stored[0].starts_with("v1.m2."), "{stored:?}");
        let app = restart(app, master_keys(&[("m2", 2)], "m2")).await;
        let res = create(&app, &partner.token(&app), &body, Some(KEY)).await;
        assert_eq!(res.status(), 201);
        assert_eq!(res.headers()["idempotent-replayed"], "true");
        assert_eq!(res.json::<Value>().await.unwrap(), first);

        // An answer no configured key opens does not stop the start: it is dropped.
        let lost = master_keys(&[("m9", 9)], "m9").seal("elsewhere", b"{}").unwrap();
        assert_eq!(execute(&app, format!("UPDATE idempotency_keys SET response = '{lost}'")).await, 1);
        let app = restart(app, master_keys(&[("m2", 2)], "m2")).await;
        let stored = texts(&app, "SELECT response AS text FROM idempotency_keys".into()).await;
        assert_eq!(stored, Vec::<String>::new());
    }
}
