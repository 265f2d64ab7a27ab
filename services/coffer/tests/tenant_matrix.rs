//! The tenant matrix, generated from the API description: objects of every kind are made
//! as one organisation, then every described operation is called on them with a second
//! organisation's token. Each answer is 403 or 404, but for lists and searches scoped to
//! the caller, which answer without the first organisation's objects; no answer carries
//! the first organisation's data, and no write takes effect (its objects read back the
//! same as their owner). An operation added later is covered as soon as it is described;
//! one whose path names an object of a kind without a fixture here fails until one is added.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;

use common::fixtures::{Client, Fixtures, body_of, fixtures};
use serde_json::Value;

/// Every readable object of the first organisation, as its owner sees it.
async fn snapshot(a: &Client, kinds: &BTreeMap<&str, String>) -> BTreeMap<String, Value> {
    let k = |name: &str| kinds[name].clone();
    let mut seen = BTreeMap::new();
    for path in [
        format!("/organisations/{}", k("organisation_uuid")),
        format!("/organisations/{}/metadata", k("organisation_uuid")),
        format!("/accounts/{}", k("account_uuid")),
        format!("/accounts/{}/billing-data", k("account_uuid")),
        format!("/supporters/{}", k("supporter_uuid")),
        format!("/payments/{}", k("payment_uuid")),
        format!("/payment-sources/{}", k("payment_source_uuid")),
        format!("/subscription-plans/{}", k("plan_uuid")),
        format!("/subscriptions/{}", k("subscription_uuid")),
        format!(
            "/subscriptions/{}/invoices/{}",
            k("subscription_uuid"),
            k("invoice_uuid")
        ),
        format!("/test-clocks/{}", k("test_clock_uuid")),
        format!("/webhooks/{}", k("webhook_uuid")),
        format!("/event-subscriptions/{}", k("event_subscription_uuid")),
        format!("/webhook-responses/{}", k("webhook_response_uuid")),
        format!("/payouts/{}", k("payout_uuid")),
        format!("/reconciliation/blueprints/{}", k("blueprint_uuid")),
        format!("/reconciliation/sources/{}", k("source_uuid")),
        format!("/reconciliation/reports/{}", k("report_uuid")),
    ] {
        let body = a.read(&path).await;
        seen.insert(path, body);
    }
    seen
}

#[tokio::test]
async fn another_tenant_gets_nothing_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let a = Client::demo(&c).await;
    let second = common::admin(
        dir.path(),
        &["organisation", "create", "--name", "Matrix B"],
    );
    let second = second["uuid"].as_str().unwrap();
    let b = a
        .made_by_admin(dir.path(), &["--organisation", second])
        .await;

    let Fixtures { kinds, secrets, .. } = fixtures(&a, &c, dir.path()).await;
    let before = snapshot(&a, &kinds).await;
    let described: Value = a.read("/openapi.json").await;
    let mut tried = 0;
    for (template, item) in described["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op["security"].as_array().is_some_and(Vec::is_empty) {
                continue; // public: the token endpoint and the signing keys
            }
            let mut path = template.clone();
            let mut names_an_object = false;
            for param in op["parameters"].as_array().into_iter().flatten() {
                if param["in"] != "path" {
                    continue;
                }
                let name = param["name"].as_str().unwrap();
                let id = kinds.get(name).unwrap_or_else(|| {
                    panic!("{method} {template}: add a fixture for {name} to this test")
                });
                path = path.replace(&format!("{{{name}}}"), id);
                names_an_object = true;
            }
            let body = body_of(op, &described, &kinds);
            let names_in_body = body
                .as_ref()
                .is_some_and(|b| kinds.values().any(|id| b.to_string().contains(id.as_str())));
            let (status, text) = b.call(&method.to_uppercase(), &path, body.as_ref()).await;
            let what = format!("{} {path} as another tenant", method.to_uppercase());
            let reads = method == "get" || template.starts_with("/search/");
            if names_an_object || names_in_body {
                assert!(matches!(status, 403 | 404), "{what}: {status} {text}");
            } else if reads {
                assert_eq!(status, 200, "{what}: the caller's own, however few: {text}");
            } else {
                assert!(status < 500, "{what}: {status} {text}");
            }
            for secret in &secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "{what} shows {secret:?}: {text}"
                );
            }
            let sent = format!(
                "{path} {}",
                body.as_ref().map(Value::to_string).unwrap_or_default()
            );
            for id in kinds.values() {
                assert!(
                    sent.contains(id.as_str()) || !text.contains(id.as_str()),
                    "{what} shows {id}, which it was not given: {text}"
                );
            }
            tried += 1;
            eprintln!("{what}: {status}");
        }
    }
    assert!(tried >= 49, "only {tried} operations tried");
    let after = snapshot(&a, &kinds).await;
    for (path, was) in &before {
        assert_eq!(
            &after[path], was,
            "{path} changed under another tenant's calls"
        );
    }
}
