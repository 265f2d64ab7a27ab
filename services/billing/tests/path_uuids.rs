//! A malformed uuid in a path is the caller's mistake: 400 in the operation's own error
//! shape, naming the path parameter, before anything is looked up.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

/// The properties a 400 names, read from shape A (`error.message`), B (`errors`) or C
/// (`message`, "property: why").
fn named(shape: char, body: &Value) -> Vec<String> {
    let items = match shape {
        'A' => body["error"]["message"].as_array(),
        'B' => body["errors"].as_array(),
        _ => {
            let message = body["message"]
                .as_str()
                .unwrap_or_else(|| panic!("shape C: {body}"));
            return vec![message.split(':').next().unwrap().to_owned()];
        }
    };
    items
        .unwrap_or_else(|| panic!("shape {shape}: {body}"))
        .iter()
        .map(|item| item["property"].as_str().unwrap().to_owned())
        .collect()
}

coffer_testkit::backend_tests! {
    async fn a_malformed_path_uuid_is_a_400_naming_the_parameter(backend) {
        let w = billing_world(backend).await;
        let (_, _, token) = billing_merchant(&w).await;
        let some = "67e55044-10b1-426f-9247-bb680e5fe0c8";
        let invoice = format!("/subscriptions/nope/invoices/{some}");
        let (close, charge) = (format!("{invoice}/close"), format!("{invoice}/charge-attempts"));
        let empty = json!({});
        for (method, path, parameter, shape, sent) in [
            ("GET", "/subscription-plans/nope", "plan_uuid", 'B', None),
            ("PATCH", "/subscription-plans/nope", "plan_uuid", 'B', Some(json!({"name": "Monthly"}))),
            ("GET", "/subscriptions/nope", "subscription_uuid", 'A', None),
            ("PATCH", "/subscriptions/nope", "subscription_uuid", 'A', Some(json!({"amount": 2000}))),
            ("POST", "/subscriptions/nope/activate", "subscription_uuid", 'C', Some(empty.clone())),
            ("POST", "/subscriptions/nope/cancel", "subscription_uuid", 'C', Some(empty.clone())),
            ("POST", "/subscriptions/nope/suspend", "subscription_uuid", 'C', Some(empty.clone())),
            ("GET", "/subscriptions/nope/invoices", "subscription_uuid", 'A', None),
            ("POST", "/subscriptions/nope/invoices", "subscription_uuid", 'A', Some(empty.clone())),
            ("GET", invoice.as_str(), "subscription_uuid", 'A', None),
            ("POST", close.as_str(), "subscription_uuid", 'A', Some(json!({"status": "cancelled"}))),
            ("POST", charge.as_str(), "subscription_uuid", 'A', Some(empty.clone())),
            ("GET", "/test-clocks/nope", "test_clock_uuid", 'B', None),
            ("DELETE", "/test-clocks/nope", "test_clock_uuid", 'B', None),
            ("POST", "/test-clocks/nope/advance", "test_clock_uuid", 'B', Some(json!({"frozen_time": 1801440000}))),
        ] {
            let mut req = w
                .app
                .http
                .request(method.parse().unwrap(), w.app.url(path))
                .bearer_auth(&token);
            if let Some(body) = sent {
                req = req.json(&body);
            }
            let res = req.send().await.unwrap();
            let status = res.status().as_u16();
            let body: Value = res.json().await.unwrap();
            assert_eq!(status, 400, "{method} {path}: {body}");
            assert_eq!(named(shape, &body), [parameter], "{method} {path}: {body}");
        }
        // The path is read before the body and before anything is loaded: a bad body beside
        // a malformed uuid names the uuid only, and every malformed path parameter is named.
        let (status, body) = w.patch("/subscription-plans/nope", &token, &json!([])).await;
        assert_eq!((status, named('B', &body)), (400, vec!["plan_uuid".to_owned()]), "{body}");
        let path = format!("/subscriptions/{some}/invoices/nope");
        let (status, body) = w.get(&path, &token).await;
        assert_eq!((status, named('A', &body)), (400, vec!["invoice_uuid".to_owned()]), "{body}");
        let (status, body) = w.get("/subscriptions/x/invoices/y", &token).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(named('A', &body), ["subscription_uuid", "invoice_uuid"], "{body}");
    }
}
