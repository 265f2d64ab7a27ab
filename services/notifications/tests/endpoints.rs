//! Webhook endpoints through HTTP: made, read, replaced, changed and removed by their
//! organisation; bad fields named; secrets never shown back; other tenants refused; their
//! secrets, and the answers stored under Idempotency-Keys, sealed again at start after a
//! master-key rotation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_notifications::NotificationsSettings;
use common::*;
use serde_json::{Value, json};

fn body(org: impl std::fmt::Display, url: &str) -> Value {
    json!({"organisation_uuid": org.to_string(), "alias": "CRM", "endpoint": url,
        "username": "coffer", "password": "basic-auth-secret"})
}

/// POST `path` under an Idempotency-Key: (status, body).
async fn keyed(w: &World, path: &str, token: &str, key: &str, body: &Value) -> (u16, Value) {
    let res = w
        .app
        .http
        .post(w.app.url(path))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    (
        res.status().as_u16(),
        res.json().await.unwrap_or(Value::Null),
    )
}

/// Thirty creates racing under one key, each answered 201, then one more that must be a
/// replay: (the replay's body, every racing answer's body).
async fn racing(
    w: &World,
    path: &str,
    token: &str,
    key: &str,
    body: &Value,
) -> (Value, Vec<Value>) {
    let answers =
        futures_util::future::join_all((0..30).map(|_| keyed(w, path, token, key, body))).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 201),
        "{answers:?}"
    );
    let res = w
        .app
        .http
        .post(w.app.url(path))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    assert_eq!(res.headers()["idempotent-replayed"], "true");
    let replayed: Value = res.json().await.unwrap();
    (replayed, answers.into_iter().map(|(_, b)| b).collect())
}

coffer_testkit::backend_tests! {
    async fn creates_at_once_with_prevent_duplicates_make_one_endpoint(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let hook = body(org, "https://crm.example.org/at-once");
        let creates = (0..8).map(|_| call(&w, "POST", "/webhooks?prevent_duplicates=true", &token, Some(&hook)));
        let answers = futures_util::future::join_all(creates).await;
        let made = answers.iter().filter(|(status, _)| *status == 201).count();
        assert_eq!(made, 1, "{answers:?}");
        assert!(answers.iter().all(|(status, b)| (*status == 200 || *status == 201) && b["uuid"] == answers[0].1["uuid"]), "{answers:?}");
        let (_, listed) = call(&w, "GET", &format!("/webhooks?organisation_uuid={org}"), &token, None).await;
        assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    }

    async fn thirty_creates_under_one_idempotency_key_make_one_endpoint_and_one_subscription(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let hook = body(org, "https://crm.example.org/once");
        let (made, answers) = racing(&w, "/webhooks", &token, "hook-1", &hook).await;
        assert!(answers.iter().all(|a| a == &made), "every answer is the first's: {answers:?}");
        let hmac_key = made["hmac_key"].as_str().unwrap().to_owned();
        let (_, listed) = call(&w, "GET", &format!("/webhooks?organisation_uuid={org}"), &token, None).await;
        assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
        let (status, err) = keyed(&w, "/webhooks", &token, "hook-1", &body(org, "https://crm.example.org/other")).await;
        assert_eq!(status, 409, "the same key with another body: {err}");

        let subscribe = json!({"action_configuration_uuid": made["uuid"], "action_type": "webhook",
            "event_name": "coffer.event.payment_gateway.payment.succeeded"});
        let (subscribed, answers) = racing(&w, "/event-subscriptions", &token, "sub-1", &subscribe).await;
        assert!(answers.iter().all(|a| a["uuid"] == subscribed["uuid"]), "{answers:?}");
        let (_, listed) = call(&w, "GET", &format!("/event-subscriptions?organisation_uuid={org}"), &token, None).await;
        assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");

        // The replayed endpoint shows its signing key, which its row keeps sealed: so does
        // the key's stored answer. (The endpoint's uuid is found, so the scan reads the
        // tables; on PostgreSQL there are no files to read.)
        let files = w.app.database_files();
        let uuid = made["uuid"].as_str().unwrap();
        let contains = |bytes: &[u8], needle: &str| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
        assert!(backend != Backend::Sqlite || files.iter().any(|f| contains(&std::fs::read(f).unwrap(), uuid)), "{files:?}");
        // Nor is the request kept as a plain digest, which a guessed password would match.
        let mut request = b"POST /webhooks\n".to_vec();
        request.extend(serde_json::to_vec(&hook).unwrap());
        let plain: String = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &request)
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            for secret in [hmac_key.as_str(), "basic-auth-secret", plain.as_str()] {
                assert!(!contains(&bytes, secret), "{secret} in {}", file.display());
            }
        }
    }

    async fn an_endpoint_is_made_shown_changed_and_removed(backend) {
        let w = notifications_world(backend).await;
        let (org, account, token) = notifications_merchant(&w).await;
        let (status, made) = call(&w, "POST", "/webhooks", &token, Some(&body(org, "https://crm.example.org/hooks"))).await;
        assert_eq!(status, 201, "{made}");
        let key = made["hmac_key"].as_str().unwrap().to_owned();
        assert!(key.starts_with("whsec_"), "{made}");
        assert!(made.get("password").is_none(), "never echoed: {made}");
        assert_eq!(made["endpoint"], "https://crm.example.org/hooks");
        assert_eq!(made["enabled"], true);
        let path = format!("/webhooks/{}", made["uuid"].as_str().unwrap());
        let (status, shown) = call(&w, "GET", &path, &token, None).await;
        assert_eq!((status, &shown), (200, &made));

        // The list shows no secrets; prevent_duplicates answers the same endpoint.
        let (status, listed) = call(&w, "GET", &format!("/webhooks?organisation_uuid={org}"), &token, None).await;
        assert_eq!(status, 200);
        assert_eq!(listed.as_array().unwrap().len(), 1);
        assert!(listed[0].get("hmac_key").is_none() && listed[0].get("password").is_none(), "{listed}");
        let (status, again) = call(&w, "POST", "/webhooks?prevent_duplicates=true", &token, Some(&body(org, "https://crm.example.org/hooks"))).await;
        assert_eq!((status, &again["uuid"]), (200, &made["uuid"]), "{again}");
        let (status, second) = call(&w, "POST", "/webhooks", &token, Some(&body(org, "https://crm.example.org/hooks"))).await;
        assert_eq!(status, 201);
        assert_ne!(second["uuid"], made["uuid"]);

        // PATCH keeps what it leaves out; a new key rotates; PUT clears what it leaves out
        // but the key.
        let (status, changed) = call(&w, "PATCH", &path, &token, Some(&json!({"alias": "CRM (prod)", "account_uuid": account, "hmac_key": "a-shared-secret-of-mine"}))).await;
        assert_eq!(status, 200, "{changed}");
        assert_eq!((changed["alias"].as_str(), changed["username"].as_str()), (Some("CRM (prod)"), Some("coffer")));
        assert_eq!(changed["hmac_key"], "a-shared-secret-of-mine");
        assert_eq!(changed["account_uuid"], account.as_str());
        let (status, replaced) = call(&w, "PUT", &path, &token, Some(&json!({"endpoint": "https://crm.example.org/v2"}))).await;
        assert_eq!(status, 200, "{replaced}");
        assert_eq!(replaced["alias"], Value::Null);
        assert_eq!(replaced["username"], Value::Null);
        assert_eq!(replaced["account_uuid"], Value::Null);
        assert_eq!(replaced["hmac_key"], "a-shared-secret-of-mine");
        let (_, off) = call(&w, "PATCH", &path, &token, Some(&json!({"enabled": false}))).await;
        assert_eq!(off["enabled"], false);

        let (status, _) = call(&w, "DELETE", &path, &token, None).await;
        assert_eq!(status, 204);
        assert_eq!(call(&w, "GET", &path, &token, None).await.0, 404);
        assert_eq!(call(&w, "DELETE", &path, &token, None).await.0, 404);
    }

    async fn bad_fields_are_named_and_change_nothing(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let (status, err) = call(&w, "POST", "/webhooks", &token, Some(&json!({"organisation_uuid": org, "endpoint": ""}))).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["errors"][0]["code"], "error.validation.not_blank", "shape B: {err}");
        assert_eq!(err["errors"][0]["property"], "endpoint");
        let (status, err) = call(&w, "POST", "/webhooks", &token, Some(&json!({
            "organisation_uuid": org, "endpoint": "http://crm.example.org", "hmac_key": "short",
            "alias": 7, "username": "a:b"}))).await;
        assert_eq!(status, 400);
        let properties: Vec<&str> = err["errors"].as_array().unwrap().iter().map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(properties, ["alias", "endpoint", "hmac_key", "username"], "{err}");
        // Left out, the organisation is the token's when it reaches one, else named missing.
        let second = w.organisation("Second Aid").await;
        let of_two = w.token_of_many(vec![org, second]).await;
        let (status, err) = call(&w, "POST", "/webhooks", &of_two, Some(&json!({"endpoint": "https://crm.example.org"}))).await;
        assert_eq!((status, &err["errors"][0]["property"]), (400, &json!("organisation_uuid")), "{err}");
        let (status, err) = call(&w, "POST", "/webhooks?prevent_duplicates=maybe", &token, Some(&body(org, "https://crm.example.org"))).await;
        assert_eq!((status, &err["errors"][0]["property"]), (400, &json!("prevent_duplicates")), "{err}");
        let (status, err) = call(&w, "POST", "/webhooks", &token, Some(&json!({"organisation_uuid": org, "endpoint": "https://crm.example.org", "account_uuid": uuid::Uuid::new_v4()}))).await;
        assert_eq!(status, 404, "{err}");
        // An address deliveries may not reach is refused where the URL names it.
        for url in ["https://127.0.0.1/hooks", "https://[::1]/hooks", "https://169.254.169.254/latest", "https://10.0.0.7/"] {
            let (status, err) = call(&w, "POST", "/webhooks", &token, Some(&body(org, url))).await;
            assert_eq!((status, &err["errors"][0]["property"]), (400, &json!("endpoint")), "{url}: {err}");
        }
        let (status, listed) = call(&w, "GET", "/webhooks", &token, None).await;
        assert_eq!((status, listed), (200, json!([])), "nothing was made");

        let (_, made) = call(&w, "POST", "/webhooks", &token, Some(&body(org, "https://crm.example.org"))).await;
        let path = format!("/webhooks/{}", made["uuid"].as_str().unwrap());
        let (status, err) = call(&w, "PUT", &path, &token, Some(&json!({"alias": "no endpoint"}))).await;
        assert_eq!((status, &err["errors"][0]["property"]), (400, &json!("endpoint")), "{err}");
        let (status, err) = call(&w, "PATCH", &path, &token, Some(&json!({"organisation_uuid": uuid::Uuid::new_v4()}))).await;
        assert_eq!((status, &err["errors"][0]["property"]), (400, &json!("organisation_uuid")), "{err}");
        assert_eq!(call(&w, "GET", &path, &token, None).await.1, made, "unchanged");
    }

    async fn a_malformed_path_uuid_is_a_400_naming_the_parameter(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let hook = body(org, "https://crm.example.org");
        let subscription = json!({"organisation_uuid": org, "action_configuration_uuid": uuid::Uuid::new_v4(), "action_type": "webhook",
            "event_name": "rnw.event.payment_gateway.payment.succeeded"});
        for (method, path, parameter, sent) in [
            ("GET", "/webhooks/nope", "webhook_uuid", None),
            ("PUT", "/webhooks/nope", "webhook_uuid", Some(&hook)),
            ("PATCH", "/webhooks/nope", "webhook_uuid", Some(&json!({"alias": "CRM"}))),
            ("DELETE", "/webhooks/nope", "webhook_uuid", None),
            ("GET", "/event-subscriptions/nope", "event_subscription_uuid", None),
            ("PUT", "/event-subscriptions/nope", "event_subscription_uuid", Some(&subscription)),
            ("PATCH", "/event-subscriptions/nope", "event_subscription_uuid", Some(&json!({"enabled": false}))),
            ("DELETE", "/event-subscriptions/nope", "event_subscription_uuid", None),
            ("GET", "/webhook-responses/nope", "webhook_response_uuid", None),
            ("POST", "/webhook-responses/nope/redeliver", "webhook_response_uuid", None),
        ] {
            let (status, err) = call(&w, method, path, &token, sent).await;
            assert_eq!(status, 400, "{method} {path}: {err}");
            let errors = err["errors"].as_array().unwrap_or_else(|| panic!("shape B: {err}"));
            assert_eq!(errors.len(), 1, "{method} {path}: {err}");
            assert_eq!(errors[0]["property"], parameter, "{method} {path}: {err}");
        }
    }

    async fn another_tenant_is_refused_everywhere(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let other = w.token(w.organisation("Other").await).await;
        let (_, made) = call(&w, "POST", "/webhooks", &token, Some(&body(org, "https://crm.example.org"))).await;
        let path = format!("/webhooks/{}", made["uuid"].as_str().unwrap());
        assert_eq!(call(&w, "POST", "/webhooks", &other, Some(&body(org, "https://evil.example"))).await.0, 403);
        assert_eq!(call(&w, "POST", "/webhooks?prevent_duplicates=true", &other, Some(&body(org, "https://crm.example.org"))).await.0, 403);
        assert_eq!(call(&w, "GET", &format!("/webhooks?organisation_uuid={org}"), &other, None).await.0, 403);
        assert_eq!(call(&w, "GET", "/webhooks", &other, None).await, (200, json!([])));
        for (method, body) in [("GET", None), ("PUT", Some(body(org, "https://evil.example"))), ("PATCH", Some(json!({"enabled": false}))), ("DELETE", None)] {
            let (status, answer) = call(&w, method, &path, &other, body.as_ref()).await;
            assert_eq!(status, 403, "{method}: {answer}");
            assert!(!answer.to_string().contains("basic-auth-secret") && !answer.to_string().contains("whsec_"), "{answer}");
        }
        assert_eq!(call(&w, "GET", &path, &token, None).await.1, made, "unchanged");
    }
    async fn an_endpoint_s_secrets_and_its_stored_answer_outlive_the_master_key_that_sealed_them(backend) {
        // A key id with `_`, which a LIKE pattern would take for any character.
        let w = notifications_world_sealing(backend, master_keys(&[("m_1", 1)], "m_1"), NotificationsSettings::default()).await;
        let (org, _, _) = notifications_merchant(&w).await;
        // The test's own token: its client is the same after the restarts below.
        let token = w.app.token_for(&[org]);
        let hook = body(org, "https://crm.example.org/rotated");
        let (status, made) = keyed(&w, "/webhooks", &token, "hook-1", &hook).await;
        assert_eq!(status, 201, "{made}");
        let path = format!("/webhooks/{}", made["uuid"].as_str().unwrap());
        // A new signing key, so the one before is kept (sealed) too.
        let (status, changed) = call(&w, "PATCH", &path, &token, Some(&json!({"hmac_key": "the-next-signing-key"}))).await;
        assert_eq!(status, 200, "{changed}");
        let columns = "SELECT hmac_key_sealed AS text FROM webhook_endpoints \
            UNION ALL SELECT previous_hmac_key_sealed FROM webhook_endpoints \
            UNION ALL SELECT password_sealed FROM webhook_endpoints \
            UNION ALL SELECT response FROM idempotency_keys";
        let sealed_under = |kid: &str, stored: &[String]| stored.len() == 4 && stored.iter().all(|s| s.starts_with(&format!("v1.{kid}.")));
        let stored = texts(&w, columns).await;
        assert!(sealed_under("m_1", &stored), "{stored:?}");

        // m2 seals from the next start, while m_1 still opens; then m_1 goes.
        let (w, started) = restarted(w, master_keys(&[("m_1", 1), ("m2", 2)], "m2")).await;
        started.unwrap();
        let stored = texts(&w, columns).await;
        assert!(sealed_under("m2", &stored), "{stored:?}");
        let (w, started) = restarted(w, master_keys(&[("m2", 2)], "m2")).await;
        started.unwrap();
        let token = w.app.token_for(&[org]);
        assert_eq!(call(&w, "GET", &path, &token, None).await, (200, changed.clone()));
        let (status, listed) = call(&w, "GET", "/webhooks", &token, None).await;
        assert_eq!((status, listed.as_array().unwrap().len()), (200, 1), "{listed}");
        let (status, replayed) = keyed(&w, "/webhooks", &token, "hook-1", &hook).await;
        assert_eq!((status, &replayed), (201, &made));

        // A stored answer no configured key opens is dropped at start, not kept to fail.
        let lost = master_keys(&[("m9", 9)], "m9").seal("elsewhere", b"{}").unwrap();
        let sql = format!("UPDATE idempotency_keys SET response = '{lost}'");
        assert_eq!(coffer_testkit::execute(&w.more[0], sql).await, 1);
        let (w, started) = restarted(w, master_keys(&[("m2", 2)], "m2")).await;
        started.unwrap();
        assert_eq!(texts(&w, "SELECT response AS text FROM idempotency_keys").await, Vec::<String>::new());

        // A signing key no configured key opens stops the start, naming its endpoint.
        let (_, started) = restarted(w, master_keys(&[("m9", 9)], "m9")).await;
        let refused = started.unwrap_err().to_string();
        for named in ["webhook_endpoints", made["uuid"].as_str().unwrap(), "m2", "secrets.keys"] {
            assert!(refused.contains(named), "{named} in {refused}");
        }
    }
}
