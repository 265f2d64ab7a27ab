//! Deliveries through HTTP to a real HTTPS receiver on loopback (crates/testkit's
//! Receiver): signatures checked by the `standardwebhooks` library, Basic auth, the retry
//! schedule on the service's clock, 410, key rotation, filters, where deliveries may not
//! go, and the delivery log with redelivery.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use base64::Engine;
use coffer_testkit::START_UNIX;
use coffer_testkit::receiver::Receiver;
use common::*;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);
const SUPPORTER_CREATED: &str = "coffer.event.supporters.supporter.created";

async fn hook(w: &World, token: &str, org: impl std::fmt::Display, body: Value) -> Value {
    let mut body = body;
    body["organisation_uuid"] = json!(org.to_string());
    let (status, made) = call(w, "POST", "/webhooks", token, Some(&body)).await;
    assert_eq!(status, 201, "{made}");
    made
}

async fn subscribe(w: &World, token: &str, hook: &Value, event: &str, filter: Option<Value>) {
    let mut body = json!({"organisation_uuid": hook["organisation_uuid"], "action_configuration_uuid": hook["uuid"],
        "action_type": "webhook", "event_name": event});
    if let Some(filter) = filter {
        body["filter"] = filter;
    }
    let (status, made) = call(w, "POST", "/event-subscriptions", token, Some(&body)).await;
    assert_eq!(status, 201, "{made}");
}

async fn new_supporter(w: &World, token: &str, org: impl std::fmt::Display) -> String {
    let (status, made, _) = w
        .post(
            "/supporters",
            token,
            &json!({"organisation_uuid": org.to_string(), "first_name": "Ada"}),
            None,
        )
        .await;
    assert_eq!(status, 201, "{made}");
    made["uuid"].as_str().unwrap().to_owned()
}

fn card_payment(account: &str) -> Value {
    json!({"account_uuid": account, "payment_method": "card", "amount": {"value": "2500", "currency": "CHF"},
        "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}})
}

/// The tries to an endpoint answered with `code`, once there are `n` (the log, newest first).
async fn answered(w: &World, token: &str, hook: &Value, code: u16, n: usize) -> Vec<Value> {
    let path = format!(
        "/webhook-responses?webhook_configuration_uuid={}&status_code={code}",
        hook["uuid"].as_str().unwrap()
    );
    eventually(w, &path, token, |b| {
        b.as_array().is_some_and(|a| a.len() == n)
    })
    .await
    .as_array()
    .unwrap()
    .clone()
}

/// Nothing more reaches `path` for a while: it still has `n` requests.
async fn still(receiver: &Receiver, path: &str, n: usize) {
    tokio::time::sleep(Duration::from_millis(400)).await;
    let got = receiver
        .received()
        .await
        .into_iter()
        .filter(|r| r["path"] == path)
        .count();
    assert_eq!(got, n, "{path} received another request");
}

coffer_testkit::backend_tests! {
    async fn a_payment_made_through_the_api_arrives_signed_with_basic_auth_and_is_logged(backend) {
        let receiver = Receiver::start();
        let w = notifications_world_with(backend, reaching(&receiver)).await;
        let (org, account, token) = notifications_merchant(&w).await;
        let h = hook(&w, &token, org, json!({"endpoint": receiver.url("/ok"), "username": "crm", "password": "pa55word"})).await;
        subscribe(&w, &token, &h, "coffer.event.payment_gateway.payment.succeeded", None).await;
        let (status, paid, _) = w.post("/payments", &token, &card_payment(&account), None).await;
        assert_eq!(status, 201, "{paid}");

        let got = receiver.wait_for("/ok", 1, WAIT).await;
        let request = &got[0];
        let body: Value = serde_json::from_str(request["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["event"]["name"], "coffer.event.payment_gateway.payment.succeeded");
        assert_eq!(body["event"]["object_uuid"], paid["uuid"]);
        let headers = &request["headers"];
        assert_eq!(headers["webhook-id"], body["event"]["id"], "the id is the event's");
        assert_eq!(headers["content-type"], "application/json");
        let basic = base64::engine::general_purpose::STANDARD.encode("crm:pa55word");
        assert_eq!(headers["authorization"], format!("Basic {basic}"));
        let key = h["hmac_key"].as_str().unwrap();
        assert!(key.starts_with("whsec_"));
        assert!(receiver.verifies(request, key, false, START_UNIX), "the library verifies the delivery");
        assert!(!receiver.verifies(request, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", false, START_UNIX), "another key does not");
        let mut tampered = request.clone();
        tampered["body"] = json!(request["body"].as_str().unwrap().replace("2500", "9500"));
        assert!(!receiver.verifies(&tampered, key, false, START_UNIX), "a changed body does not");

        // The log: the list form, then the single form with the request and the answer.
        let tries = answered(&w, &token, &h, 200, 1).await;
        assert_eq!(tries[0]["error"], "false");
        assert_eq!(tries[0]["event_uuid"], body["event"]["id"]);
        assert_eq!(tries[0]["object_uuid"], paid["uuid"]);
        assert_eq!(tries[0]["reason_phrase"], "OK");
        assert_eq!(tries[0]["sent_at"], START_UNIX);
        let one = tries[0]["uuid"].as_str().unwrap();
        let (status, entry) = call(&w, "GET", &format!("/webhook-responses/{one}"), &token, None).await;
        assert_eq!(status, 200, "{entry}");
        assert_eq!((entry["do_not_retry"].as_str(), entry["response_body"].as_str()), (Some("false"), Some("ok")));
        assert_eq!(entry["request_body"], request["body"]);
        let sent: Value = serde_json::from_str(entry["request_headers"].as_str().unwrap()).unwrap();
        assert_eq!(sent["webhook-signature"], headers["webhook-signature"]);
        assert!(!entry.to_string().contains(&basic) && !entry.to_string().contains("pa55word"), "{entry}");
        let _: Value = serde_json::from_str(entry["response_headers"].as_str().unwrap()).unwrap();

        // Prometheus sees the try.
        let metrics = w.app.http.get(w.app.url("/metrics")).send().await.unwrap().text().await.unwrap();
        assert!(metrics.contains("coffer_webhook_deliveries_total{outcome=\"delivered\"} 1"), "{metrics}");
        assert!(metrics.contains("coffer_webhook_delivery_duration_seconds_count 1"), "{metrics}");

        // Redelivered: a new try, with the same webhook-id.
        let (status, again) = call(&w, "POST", &format!("/webhook-responses/{one}/redeliver"), &token, None).await;
        assert_eq!(status, 202, "{again}");
        let got = receiver.wait_for("/ok", 2, WAIT).await;
        assert_eq!(got[1]["headers"]["webhook-id"], headers["webhook-id"]);
        answered(&w, &token, &h, 200, 2).await;
        let (status, err) = call(&w, "POST", &format!("/webhook-responses/{one}/redeliver"), &token, Some(&json!({"x": 1}))).await;
        assert_eq!(status, 400, "{err}");
        // The body may be left out, but one that is sent is an object (`null` is not).
        let (status, err) = call(&w, "POST", &format!("/webhook-responses/{one}/redeliver"), &token, Some(&Value::Null)).await;
        assert_eq!(status, 400, "{err}");
        still(&receiver, "/ok", 2).await;

        // A parameter given twice is named.
        let hook_uuid = h["uuid"].as_str().unwrap();
        let path = format!("/webhook-responses?webhook_configuration_uuid={hook_uuid}&webhook_configuration_uuid={hook_uuid}");
        let (status, err) = call(&w, "GET", &path, &token, None).await;
        assert_eq!(status, 400, "{err}");
        assert!(err.to_string().contains("\"webhook_configuration_uuid\""), "{err}");
    }

    async fn failed_tries_come_back_on_the_schedule_until_they_run_out(backend) {
        let receiver = Receiver::start();
        let w = notifications_world_with(backend, reaching(&receiver)).await;
        let (org, _, mut token) = notifications_merchant(&w).await;
        let h = hook(&w, &token, org, json!({"endpoint": receiver.url("/status/500")})).await;
        subscribe(&w, &token, &h, SUPPORTER_CREATED, None).await;
        new_supporter(&w, &token, org).await;
        receiver.wait_for("/status/500", 1, WAIT).await;
        answered(&w, &token, &h, 500, 1).await;
        let waits = [5, 300, 1800, 7200, 18000, 36000, 36000];
        for (i, wait) in waits.into_iter().enumerate() {
            // Not before the wait less a fifth, and by the wait and a fifth.
            w.app.clock.advance(time::Duration::milliseconds(wait * 790));
            still(&receiver, "/status/500", i + 1).await;
            w.app.clock.advance(time::Duration::milliseconds(wait * 420));
            receiver.wait_for("/status/500", i + 2, WAIT).await;
            // Tokens expire as the clock moves: a fresh one for each look at the log.
            token = w.token(org).await;
            answered(&w, &token, &h, 500, i + 2).await;
        }
        let tries = answered(&w, &token, &h, 500, 8).await;
        let last = tries[0]["uuid"].as_str().unwrap();
        let (_, entry) = call(&w, "GET", &format!("/webhook-responses/{last}"), &token, None).await;
        assert_eq!(entry["do_not_retry"], "true", "{entry}");
        assert_eq!(entry["error_message"], "the endpoint answered 500 Internal Server Error");
        let first = tries[7]["uuid"].as_str().unwrap();
        let (_, entry) = call(&w, "GET", &format!("/webhook-responses/{first}"), &token, None).await;
        assert_eq!(entry["do_not_retry"], "false");
        w.app.clock.advance(time::Duration::days(2));
        still(&receiver, "/status/500", 8).await;
        let token = w.token(org).await;
        let (_, failed) = call(&w, "GET", &format!("/webhook-responses?organisation_uuid={org}&status=failed&size=3"), &token, None).await;
        assert_eq!(failed.as_array().unwrap().len(), 3, "paged");
    }

    async fn retry_after_is_honoured(backend) {
        let receiver = Receiver::start();
        let w = notifications_world_with(backend, reaching(&receiver)).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let h = hook(&w, &token, org, json!({"endpoint": receiver.url("/retry-after/120")})).await;
        subscribe(&w, &token, &h, SUPPORTER_CREATED, None).await;
        new_supporter(&w, &token, org).await;
        receiver.wait_for("/retry-after/120", 1, WAIT).await;
        answered(&w, &token, &h, 503, 1).await;
        w.app.clock.advance(time::Duration::seconds(100));
        still(&receiver, "/retry-after/120", 1).await;
        w.app.clock.advance(time::Duration::seconds(21));
        receiver.wait_for("/retry-after/120", 2, WAIT).await;
    }

    async fn a_410_turns_the_endpoint_off_and_says_so_until_it_is_turned_on(backend) {
        let receiver = Receiver::start();
        let w = notifications_world_with(backend, reaching(&receiver)).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let gone = hook(&w, &token, org, json!({"endpoint": receiver.url("/status/410")})).await;
        subscribe(&w, &token, &gone, SUPPORTER_CREATED, None).await;
        let watcher = hook(&w, &token, org, json!({"endpoint": receiver.url("/watcher")})).await;
        subscribe(&w, &token, &watcher, "coffer.event.notifications.webhook_endpoint.disabled", None).await;
        new_supporter(&w, &token, org).await;
        receiver.wait_for("/status/410", 1, WAIT).await;
        let path = format!("/webhooks/{}", gone["uuid"].as_str().unwrap());
        let off = eventually(&w, &path, &token, |e| e["enabled"] == false).await;
        assert!(off["disabled_reason"].as_str().unwrap().contains("410"), "{off}");
        let told = receiver.wait_for("/watcher", 1, WAIT).await;
        let body: Value = serde_json::from_str(told[0]["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["event"]["name"], "coffer.event.notifications.webhook_endpoint.disabled");
        assert_eq!(body["event"]["data"]["uuid"], gone["uuid"]);
        assert_eq!(body["event"]["data"]["enabled"], false);
        let (_, entry) = call(&w, "GET", &format!("/webhook-responses?webhook_configuration_uuid={}", gone["uuid"].as_str().unwrap()), &token, None).await;
        let (_, entry) = call(&w, "GET", &format!("/webhook-responses/{}", entry[0]["uuid"].as_str().unwrap()), &token, None).await;
        assert_eq!(entry["do_not_retry"], "true");

        // Off, it is sent nothing; turned on, it is sent again.
        new_supporter(&w, &token, org).await;
        still(&receiver, "/status/410", 1).await;
        let (status, on) = call(&w, "PATCH", &path, &token, Some(&json!({"enabled": true}))).await;
        assert_eq!((status, &on["enabled"], &on["disabled_reason"]), (200, &json!(true), &Value::Null));
        new_supporter(&w, &token, org).await;
        receiver.wait_for("/status/410", 2, WAIT).await;
    }

    async fn tries_held_for_an_endpoint_turned_off_meanwhile_are_let_go_unmade(backend) {
        let receiver = Receiver::start();
        // One try in flight per endpoint, so the sender holds the next two in the process.
        let settings = coffer_notifications::NotificationsSettings { max_in_flight_per_endpoint: 1, ..reaching(&receiver) };
        let w = notifications_world_with(backend, settings).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let slow = hook(&w, &token, org, json!({"endpoint": receiver.url("/slow/2")})).await;
        subscribe(&w, &token, &slow, SUPPORTER_CREATED, None).await;
        for _ in 0..3 {
            new_supporter(&w, &token, org).await;
        }
        // All three claimed (each logged as begun), one on its way to the receiver.
        let log = format!("/webhook-responses?webhook_configuration_uuid={}", slow["uuid"].as_str().unwrap());
        eventually(&w, &log, &token, |b| b.as_array().is_some_and(|a| a.len() == 3)).await;
        receiver.wait_for("/slow/2", 1, WAIT).await;
        let path = format!("/webhooks/{}", slow["uuid"].as_str().unwrap());
        let (status, _) = call(&w, "PATCH", &path, &token, Some(&json!({"enabled": false}))).await;
        assert_eq!(status, 200);
        // Past what the claim vouched for: the held tries ask, find it off, and go unmade.
        w.app.clock.advance(time::Duration::seconds(2));
        let token = w.token(org).await;
        let tries = eventually(&w, &log, &token, |b| {
            b.as_array().is_some_and(|a| a.len() == 1 && a[0]["status_code"] == 200)
        })
        .await;
        assert_eq!(tries.as_array().unwrap().len(), 1, "{tries}");
        still(&receiver, "/slow/2", 1).await;
    }

    async fn a_rotated_key_signs_beside_the_new_one_for_a_day(backend) {
        let receiver = Receiver::start();
        let w = notifications_world_with(backend, reaching(&receiver)).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let old = "a-plain-shared-secret-of-ours";
        let h = hook(&w, &token, org, json!({"endpoint": receiver.url("/ok"), "hmac_key": old})).await;
        subscribe(&w, &token, &h, SUPPORTER_CREATED, None).await;
        let new = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let path = format!("/webhooks/{}", h["uuid"].as_str().unwrap());
        let (status, _) = call(&w, "PATCH", &path, &token, Some(&json!({"hmac_key": new}))).await;
        assert_eq!(status, 200);
        new_supporter(&w, &token, org).await;
        let got = receiver.wait_for("/ok", 1, WAIT).await;
        assert_eq!(got[0]["headers"]["webhook-signature"].as_str().unwrap().split(' ').count(), 2);
        assert!(receiver.verifies(&got[0], new, false, START_UNIX), "the new key verifies");
        assert!(receiver.verifies(&got[0], old, true, START_UNIX), "and so does the old one, for now");

        w.app.clock.advance(time::Duration::seconds(24 * 3600 + 1));
        let token = w.token(org).await;
        new_supporter(&w, &token, org).await;
        let got = receiver.wait_for("/ok", 2, WAIT).await;
        let at = START_UNIX + 24 * 3600 + 1;
        assert_eq!(got[1]["headers"]["webhook-signature"].as_str().unwrap().split(' ').count(), 1);
        assert!(receiver.verifies(&got[1], new, false, at));
        assert!(!receiver.verifies(&got[1], old, true, at), "a day later the old key is gone");
    }

    async fn filters_in_both_forms_choose_what_is_delivered(backend) {
        let receiver = Receiver::start();
        let w = notifications_world_with(backend, reaching(&receiver)).await;
        let (org, account, token) = notifications_merchant(&w).await;
        let succeeded = "rnw.event.payment_gateway.payment.succeeded";
        let cards = hook(&w, &token, org, json!({"endpoint": receiver.url("/cards")})).await;
        subscribe(&w, &token, &cards, succeeded, Some(json!({"$match": {"data.payment_method": "card"}}))).await;
        let twint = hook(&w, &token, org, json!({"endpoint": receiver.url("/twint")})).await;
        subscribe(&w, &token, &twint, succeeded, Some(json!("event.data[\"payment_method\"] === \"twint\""))).await;
        let not_twint = hook(&w, &token, org, json!({"endpoint": receiver.url("/not-twint")})).await;
        subscribe(&w, &token, &not_twint, succeeded, Some(json!("!(event.data[\"payment_method\"] === \"twint\") && event.data[\"amount\"] !== null"))).await;
        let (status, paid, _) = w.post("/payments", &token, &card_payment(&account), None).await;
        assert_eq!(status, 201, "{paid}");
        receiver.wait_for("/cards", 1, WAIT).await;
        receiver.wait_for("/not-twint", 1, WAIT).await;
        still(&receiver, "/twint", 0).await;
    }

    async fn a_name_that_resolves_to_a_private_address_is_never_reached(backend) {
        let receiver = Receiver::start();
        // The receiver's certificate is trusted, but loopback is not allowed.
        let settings = coffer_notifications::NotificationsSettings {
            extra_roots: Some(receiver.cert_pem.clone()),
            ..Default::default()
        };
        let w = notifications_world_with(backend, settings).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let h = hook(&w, &token, org, json!({"endpoint": receiver.url("/ok")})).await;
        subscribe(&w, &token, &h, SUPPORTER_CREATED, None).await;
        new_supporter(&w, &token, org).await;
        // Status 0 is also that of a try just begun: wait for its answer to be recorded.
        let tries = answered(&w, &token, &h, 0, 1).await;
        let path = format!("/webhook-responses/{}", tries[0]["uuid"].as_str().unwrap());
        let entry = eventually(&w, &path, &token, |e| !e["error_message"].as_str().unwrap_or_default().starts_with("no answer was recorded")).await;
        assert!(entry["error_message"].as_str().unwrap().contains("not a public address"), "{entry}");
        assert_eq!(entry["error"], "true");
        still(&receiver, "/ok", 0).await;
        for url in ["https://127.0.0.1/hooks", "https://[::1]/hooks", "https://169.254.169.254/latest", "https://10.1.2.3/"] {
            let (status, err) = call(&w, "POST", "/webhooks", &token, Some(&json!({"organisation_uuid": org.to_string(), "endpoint": url}))).await;
            assert_eq!(status, 400, "{url}: {err}");
        }
    }

    async fn another_organisation_sees_none_of_the_log(backend) {
        let receiver = Receiver::start();
        let w = notifications_world_with(backend, reaching(&receiver)).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let h = hook(&w, &token, org, json!({"endpoint": receiver.url("/ok")})).await;
        subscribe(&w, &token, &h, SUPPORTER_CREATED, None).await;
        new_supporter(&w, &token, org).await;
        let tries = answered(&w, &token, &h, 200, 1).await;
        let one = tries[0]["uuid"].as_str().unwrap();
        let other = w.organisation("Other Aid").await;
        let intruder = w.token(other).await;
        let (status, listed) = call(&w, "GET", "/webhook-responses", &intruder, None).await;
        assert_eq!((status, listed), (200, json!([])));
        let (status, _) = call(&w, "GET", &format!("/webhook-responses?organisation_uuid={org}"), &intruder, None).await;
        assert_eq!(status, 403);
        for (method, path) in [("GET", format!("/webhook-responses/{one}")), ("POST", format!("/webhook-responses/{one}/redeliver"))] {
            let (status, body) = call(&w, method, &path, &intruder, None).await;
            assert!(status == 403 || status == 404, "{method} {path}: {status} {body}");
        }
        still(&receiver, "/ok", 1).await;
    }
}
