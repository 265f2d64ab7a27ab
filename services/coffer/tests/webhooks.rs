//! Webhooks from `coffer dev`, as the README shows them: a payment made through the API
//! arrives at a real HTTPS receiver signed, and the `standardwebhooks` library verifies it.
//! Then the process is killed (`kill -9`) in the middle of a try: started again, it makes
//! the delivery again with the same `webhook-id`, and the log shows each try once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use coffer_testkit::receiver::Receiver;
use serde_json::{Value, json};

async fn call(
    base: &str,
    token: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .request(method, format!("{base}{path}"))
        .bearer_auth(token);
    if let Some(body) = body {
        req = req.json(&body);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn hook_to(base: &str, token: &str, org: &str, url: &str, event: &str) -> Value {
    let (status, hook) = call(
        base,
        token,
        reqwest::Method::POST,
        "/webhooks",
        Some(json!({"organisation_uuid": org, "endpoint": url})),
    )
    .await;
    assert_eq!(status, 201, "{hook}");
    let (status, sub) = call(base, token, reqwest::Method::POST, "/event-subscriptions",
        Some(json!({"action_configuration_uuid": hook["uuid"], "action_type": "webhook", "event_name": event}))).await;
    assert_eq!(status, 201, "{sub}");
    hook
}

fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

#[tokio::test]
async fn a_payment_arrives_signed_and_a_try_cut_by_kill_9_is_made_again() {
    let receiver = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let roots = dir.path().join("receiver.pem");
    std::fs::write(&roots, &receiver.cert_pem).unwrap();
    let env = [
        ("COFFER_NOTIFICATIONS__ALLOW_SUBNETS", "127.0.0.0/8"),
        (
            "COFFER_NOTIFICATIONS__EXTRA_ROOT_CERTS",
            roots.to_str().unwrap(),
        ),
    ];
    let data = dir.path().join("data");
    let mut server = common::start_with(&data, &env);
    let c = common::credentials(&data, &mut server).await;
    let base = c["base_url"].as_str().unwrap().to_owned();
    let token = common::demo_token(&c).await;
    let org = c["organisation_uuid"].as_str().unwrap();

    // The README's example: subscribe, pay, receive, verify.
    let hook = hook_to(
        &base,
        &token,
        org,
        &receiver.url("/ok"),
        "coffer.event.payment_gateway.payment.succeeded",
    )
    .await;
    let (status, paid) = call(&base, &token, reqwest::Method::POST, "/payments", Some(json!({"account_uuid": c["account_uuids"][0],
        "payment_method": "card", "amount": {"value": "2500", "currency": "CHF"},
        "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}}))).await;
    assert_eq!(status, 201, "{paid}");
    let got = receiver.wait_for("/ok", 1, Duration::from_secs(15)).await;
    let body: Value = serde_json::from_str(got[0]["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["event"]["object_uuid"], paid["uuid"]);
    assert!(receiver.verifies(&got[0], hook["hmac_key"].as_str().unwrap(), false, now()));

    // A try in flight when the process dies.
    hook_to(
        &base,
        &token,
        org,
        &receiver.url("/slow/3"),
        "coffer.event.supporters.supporter.created",
    )
    .await;
    let (status, _) = call(
        &base,
        &token,
        reqwest::Method::POST,
        "/supporters",
        Some(json!({"organisation_uuid": org, "first_name": "Kay"})),
    )
    .await;
    assert_eq!(status, 201);
    let first = receiver
        .wait_for("/slow/3", 1, Duration::from_secs(15))
        .await;
    server.0.kill().unwrap(); // SIGKILL: no shutdown, no last writes.
    server.0.wait().unwrap();

    let mut server = common::start_with(&data, &env);
    let c = common::credentials(&data, &mut server).await;
    let base = c["base_url"].as_str().unwrap().to_owned();
    // The try's lease (60 s) runs out, and the delivery is made again.
    let again = receiver
        .wait_for("/slow/3", 2, Duration::from_secs(90))
        .await;
    assert_eq!(
        again[1]["headers"]["webhook-id"],
        first[0]["headers"]["webhook-id"]
    );
    let event = first[0]["headers"]["webhook-id"].as_str().unwrap();
    let path = format!("/webhook-responses?event_uuid={event}");
    for _ in 0..200 {
        let token = common::demo_token(&c).await;
        let (status, tries) = call(&base, &token, reqwest::Method::GET, &path, None).await;
        assert_eq!(status, 200);
        let tries = tries.as_array().unwrap().clone();
        if tries.iter().any(|t| t["status_code"] == 200) {
            assert_eq!(tries.len(), 2, "one entry per try: {tries:?}");
            let cut = tries
                .iter()
                .find(|t| t["status_code"] == 0)
                .expect("the cut try is logged");
            let (_, entry) = call(
                &base,
                &token,
                reqwest::Method::GET,
                &format!("/webhook-responses/{}", cut["uuid"].as_str().unwrap()),
                None,
            )
            .await;
            assert!(
                entry["error_message"]
                    .as_str()
                    .unwrap()
                    .starts_with("no answer was recorded"),
                "{entry}"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the second try was never logged with its answer");
}
