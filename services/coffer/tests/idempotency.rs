//! Idempotency-Key on every create, generated from the API description: each described POST
//! that answers 201 says it takes the key, and thirty requests racing under one key make
//! one object: every answer names it, but those told that the first request is still under
//! way (409), and a later request with that key is a replay. An operation added later is
//! covered as soon as it is described.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::fixtures::{Client, body_of, fixtures, statement_form};
use serde_json::{Value, json};

/// Creates no client can repeat under a key of its own, and why.
const WITHOUT_KEY: [(&str, &str); 4] = [
    // Public: the person a process was made for completes it by its token, once; there is
    // no client whose keys these would be, and a second completion is 409.
    (
        "/partner-onboarding-processes/tokens/{token}/execute",
        "completed once by its token",
    ),
    (
        "/partner-onboarding-processes/tokens/{token}/connect",
        "completed once by its token",
    ),
    // Between Coffer's own services: identity answers the same uuids the same way.
    (
        "/internal/onboardings",
        "idempotent by the uuids it is given",
    ),
    ("/internal/user-credentials", "makes nothing"),
];

/// The example a create shows, with what it needs to make an object against the fixtures
/// (the demo's payment sources are the test provider's).
fn made_from_example(template: &str, mut example: Value) -> Value {
    if template == "/subscriptions" {
        example["test_mode"] = json!(true);
    }
    example
}

/// Sends one create under `key`: (status, body, replayed).
async fn create(
    caller: &Client,
    path: &str,
    template: &str,
    body: &Value,
    key: &str,
) -> (u16, Value, bool) {
    let url = format!("{}{path}", caller.base);
    let mut req = caller
        .http
        .post(url)
        .bearer_auth(&caller.token)
        .header("Idempotency-Key", key);
    req = if template.ends_with("/execute") {
        req.multipart(statement_form("IDEMPOTENT-STATEMENT"))
    } else {
        req.json(body)
    };
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let replayed = res
        .headers()
        .get("idempotent-replayed")
        .is_some_and(|v| v == "true");
    let text = res.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
        replayed,
    )
}

#[tokio::test]
async fn every_create_makes_one_object_per_idempotency_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let a = Client::demo(&c).await;
    let platform = a.made_by_admin(dir.path(), &["--platform"]).await;
    let f = fixtures(&a, &c, dir.path()).await;
    let described: Value = a.read("/openapi.json").await;

    let mut tried = Vec::new();
    for (template, item) in described["paths"].as_object().unwrap() {
        let Some(op) = item.get("post") else {
            continue;
        };
        if op["responses"].get("201").is_none() {
            continue; // not a create
        }
        if WITHOUT_KEY.iter().any(|(t, _)| t == template) {
            continue;
        }
        let takes_key = op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["in"] == "header" && p["name"] == "Idempotency-Key");
        assert!(
            takes_key,
            "POST {template} does not describe Idempotency-Key"
        );
        let caller = match template.as_str() {
            "/partner-onboarding-processes" => &f.partner,
            "/payment-sources/{payment_source_uuid}/charges" => &platform,
            _ => &a,
        };
        let mut path = template.clone();
        for (name, id) in &f.kinds {
            path = path.replace(&format!("{{{name}}}"), id);
        }
        assert!(
            !path.contains('{'),
            "POST {template}: add a fixture for {path}"
        );
        let example = body_of(op, &described, &f.kinds).unwrap_or_else(|| json!({}));
        let body = made_from_example(template, example);
        let key = format!("once-{}", tried.len());
        let racing: Vec<_> = (0..30)
            .map(|_| {
                let (caller, path, template) = (caller.clone(), path.clone(), template.clone());
                let (body, key) = (body.clone(), key.clone());
                tokio::spawn(async move { create(&caller, &path, &template, &body, &key).await })
            })
            .collect();
        let mut answers = Vec::new();
        for answer in racing {
            answers.push(answer.await.unwrap());
        }
        // A request that comes while the first one is still under way (its provider
        // call, say) is told so (409) and makes nothing; every other answer is the first's.
        let in_progress =
            |s: &u16, b: &Value| *s == 409 && b.to_string().contains("is in progress");
        let (status, first, _) = answers
            .iter()
            .find(|(s, b, _)| !in_progress(s, b))
            .unwrap_or_else(|| panic!("POST {path}: every answer was 409"));
        assert!((200..300).contains(status), "POST {path}: {status} {first}");
        let uuid_of = |b: &Value| b["uuid"].clone();
        for (s, b, _) in answers.iter().filter(|(s, b, _)| !in_progress(s, b)) {
            assert_eq!(
                (s, uuid_of(b)),
                (status, uuid_of(first)),
                "POST {path}: every racing answer names the first object"
            );
        }
        assert!(
            !uuid_of(first).is_null(),
            "POST {path} names what it made: {first}"
        );
        let (again, replayed, was_replayed) = create(caller, &path, template, &body, &key).await;
        assert_eq!(again, *status, "POST {path}: {replayed}");
        assert!(was_replayed, "POST {path}: a later request is a replay");
        assert_eq!(uuid_of(&replayed), uuid_of(first), "POST {path}");
        tried.push(template.clone());
        eprintln!("POST {template}: one object for thirty racing requests");
    }
    assert!(
        tried.len() >= 15,
        "only {} creates tried: {tried:?}",
        tried.len()
    );
}
