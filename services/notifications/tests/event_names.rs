//! Event subscriptions in each form a client uses: Coffer's name, RaiseNow's "adjusted" form
//! (`rnw.event.…`) and RaiseNow's own (`raisenow.…`). Each receives the event under the name
//! it was made with, signed over what it receives, the envelope otherwise the event's; a
//! RaiseNow name Coffer has no event for is refused naming `event_name`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use coffer_testkit::START_UNIX;
use coffer_testkit::receiver::Receiver;
use common::*;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);
const COFFER: &str = "coffer.event.payment_gateway.payment.succeeded";
const ADJUSTED: &str = "rnw.event.payment_gateway.payment.succeeded";
const RAISENOW: &str = "raisenow.payments.payment.succeeded";

async fn hook(w: &World, token: &str, org: impl std::fmt::Display, url: String) -> Value {
    let body = json!({"organisation_uuid": org.to_string(), "endpoint": url});
    let (status, made) = call(w, "POST", "/webhooks", token, Some(&body)).await;
    assert_eq!(status, 201, "{made}");
    made
}

async fn subscribe(
    w: &World,
    token: &str,
    hook: &Value,
    event: &str,
    filter: Option<&str>,
) -> Value {
    let mut body = json!({"action_configuration_uuid": hook["uuid"], "action_type": "webhook", "event_name": event});
    if let Some(filter) = filter {
        body["filter"] = json!(filter);
    }
    let (status, made) = call(w, "POST", "/event-subscriptions", token, Some(&body)).await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["event_name"], event, "shown as sent");
    made
}

/// The one request `path` received, and its body.
async fn delivered(receiver: &Receiver, path: &str) -> (Value, Value) {
    let got = receiver.wait_for(path, 1, WAIT).await;
    assert_eq!(got.len(), 1, "{path}: one delivery");
    let body: Value = serde_json::from_str(got[0]["body"].as_str().unwrap()).unwrap();
    (got[0].clone(), body)
}

/// The `errors` of a 400 (shape B) to a subscription named `event`.
async fn refused(w: &World, token: &str, hook: &Value, event: &str) -> Vec<Value> {
    let body = json!({"action_configuration_uuid": hook["uuid"], "action_type": "webhook", "event_name": event});
    let (status, err) = call(w, "POST", "/event-subscriptions", token, Some(&body)).await;
    assert_eq!(status, 400, "{event}: {err}");
    assert_eq!(err["code"], "bad_request", "{err}");
    err["errors"].as_array().unwrap().clone()
}

coffer_testkit::backend_tests! {
    async fn each_subscription_receives_the_event_under_the_name_it_was_made_with(backend) {
        let receiver = Receiver::start();
        let w = notifications_world_with(backend, reaching(&receiver)).await;
        let (org, account, token) = notifications_merchant(&w).await;
        let mut hooks = Vec::new();
        for (path, name, filter) in [
            ("/coffer", COFFER, None),
            ("/adjusted", ADJUSTED, None),
            // A filter reads the event under the subscription's name.
            ("/raisenow", RAISENOW, Some("event.name === \"raisenow.payments.payment.succeeded\"")),
        ] {
            let h = hook(&w, &token, org, receiver.url(path)).await;
            subscribe(&w, &token, &h, name, filter).await;
            hooks.push((path, name, h));
        }
        // One endpoint under two names still gets one delivery, under the name of the
        // subscription listed first.
        let both = hook(&w, &token, org, receiver.url("/both")).await;
        subscribe(&w, &token, &both, RAISENOW, None).await;
        subscribe(&w, &token, &both, ADJUSTED, None).await;
        let of_both = format!("/event-subscriptions?organisation_uuid={org}&webhook_configuration_uuid={}", both["uuid"].as_str().unwrap());
        let (_, listed) = call(&w, "GET", &of_both, &token, None).await;
        let first = listed[0]["event_name"].as_str().unwrap().to_owned();

        let payment = json!({"account_uuid": account, "payment_method": "card", "amount": {"value": "2500", "currency": "CHF"},
            "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}});
        let (status, paid, _) = w.post("/payments", &token, &payment, None).await;
        assert_eq!(status, 201, "{paid}");

        let (_, coffer) = delivered(&receiver, "/coffer").await;
        assert_eq!(coffer["event"]["name"], COFFER);
        assert_eq!(coffer["event"]["object_uuid"], paid["uuid"]);
        for (path, name, h) in &hooks {
            let (request, body) = delivered(&receiver, path).await;
            assert_eq!(body["event"]["name"], *name, "{path}");
            assert_eq!(request["headers"]["webhook-id"], coffer["event"]["id"], "{path}: the event's id");
            let mut renamed = coffer.clone();
            renamed["event"]["name"] = json!(name);
            assert_eq!(body, renamed, "{path}: only the name differs");
            let key = h["hmac_key"].as_str().unwrap();
            assert!(receiver.verifies(&request, key, false, START_UNIX), "{path}: signed as delivered");
            let mut other = request.clone();
            other["body"] = json!(request["body"].as_str().unwrap().replace(name, COFFER));
            assert!(*name == COFFER || !receiver.verifies(&other, key, false, START_UNIX), "{path}: over its own name");
        }
        let (request, body) = delivered(&receiver, "/both").await;
        assert_eq!(body["event"]["name"], first.as_str());
        assert!(receiver.verifies(&request, both["hmac_key"].as_str().unwrap(), false, START_UNIX));

        // The delivery log keeps the body as it was sent.
        let path = format!("/webhook-responses?organisation_uuid={org}&webhook_configuration_uuid={}&status_code=200", hooks[2].2["uuid"].as_str().unwrap());
        let tries = eventually(&w, &path, &token, |b| b.as_array().is_some_and(|a| a.len() == 1)).await;
        let one = format!("/webhook-responses/{}", tries[0]["uuid"].as_str().unwrap());
        let (status, entry) = call(&w, "GET", &one, &token, None).await;
        assert_eq!(status, 200, "{entry}");
        let logged: Value = serde_json::from_str(entry["request_body"].as_str().unwrap()).unwrap();
        assert_eq!(logged["event"]["name"], RAISENOW);
    }

    async fn raisenow_names_coffer_has_no_event_for_are_refused_naming_event_name(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let h = hook(&w, &token, org, "https://crm.example.org/hooks".into()).await;
        let made = subscribe(&w, &token, &h, "raisenow.subscriptions.subscription.activated", None).await;

        for unknown in ["raisenow.payments.payment.exploded", "raisenow.payment_gateway.payment.succeeded"] {
            let errors = refused(&w, &token, &h, unknown).await;
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert_eq!(errors[0]["property"], "event_name");
            let message = errors[0]["message"].as_str().unwrap();
            assert!(message.contains("docs/events.md") && message.contains("raisenow.payments.payment.succeeded"), "{message}");
        }
        let errors = refused(&w, &token, &h, "raisenow.organisations.organisation.approved").await;
        assert_eq!(errors[0]["property"], "event_name");
        assert!(errors[0]["message"].as_str().unwrap().contains("an event Coffer does not have"), "{errors:?}");

        // A change to an unknown name is refused too, and the subscription keeps its name.
        let path = format!("/event-subscriptions/{}", made["uuid"].as_str().unwrap());
        let (status, err) = call(&w, "PATCH", &path, &token, Some(&json!({"event_name": "raisenow.subscriptions.subscription.paused"}))).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["errors"][0]["property"], "event_name");
        let (_, kept) = call(&w, "GET", &path, &token, None).await;
        assert_eq!(kept["event_name"], "raisenow.subscriptions.subscription.activated");
        assert_eq!(call(&w, "GET", &format!("/event-subscriptions?organisation_uuid={org}"), &token, None).await.1.as_array().unwrap().len(), 1, "nothing made");
    }
}
