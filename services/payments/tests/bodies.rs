//! Bodies a client did not mean: each is refused with a 400 naming what is wrong, and
//! nothing changes. Leaving a body out is the only way to ask for a default.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

fn card_payment(account: &str, value: &str) -> Value {
    json!({
        "account_uuid": account,
        "payment_method": "card",
        "amount": {"value": value, "currency": "CHF"},
        "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"},
    })
}

/// The bodies no operation can read: (Content-Type, body, what the answer says).
fn unreadable() -> Vec<(Option<&'static str>, &'static str, &'static str)> {
    vec![
        (
            Some("application/json"),
            r#"{"amount": {"value": "1", "cur"#,
            "not valid JSON",
        ),
        (
            Some("text/plain"),
            r#"{"amount": {"value": "1", "currency": "CHF"}}"#,
            "application/json",
        ),
        (
            Some("application/x-www-form-urlencoded"),
            "amount=1",
            "application/json",
        ),
        (
            None,
            r#"{"amount": {"value": "1", "currency": "CHF"}}"#,
            "application/json",
        ),
        (Some("application/json"), "[]", "JSON object"),
        (Some("application/json"), "null", "JSON object"),
        (Some("application/json"), "\"refund\"", "JSON object"),
    ]
}

async fn send(
    w: &World,
    method: reqwest::Method,
    path: &str,
    token: &str,
    content_type: Option<&str>,
    body: &str,
) -> (u16, Value) {
    let mut req = w
        .app
        .http
        .request(method, w.app.url(path))
        .bearer_auth(token)
        .body(body.to_owned());
    if let Some(content_type) = content_type {
        req = req.header("content-type", content_type);
    }
    let res = req.send().await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

/// The first message of an error body, whichever shape it is in.
fn message(err: &Value) -> String {
    let items = err.get("errors").or_else(|| err.pointer("/error/message"));
    match items.and_then(|i| i.get(0)) {
        Some(item) => format!("{} {}", item["property"], item["message"]),
        None => err["message"].to_string(),
    }
}

coffer_testkit::backend_tests! {
    async fn a_malformed_path_uuid_is_a_400_naming_its_parameter(backend) {
        let w = world(backend).await;
        let (_, _, token) = merchant(&w).await;
        let platform = w.app.platform_token();
        let charge = r#"{"amount": {"value": "100", "currency": "CHF"}}"#;
        // (method, path, token, body, the parameter, whether the operation answers in shape C)
        let post = reqwest::Method::POST;
        let cases = [
            (reqwest::Method::GET, "/payments/nope", token.as_str(), "", "payment_uuid", false),
            (post.clone(), "/payment-sources/nope/charges", platform.as_str(), charge, "payment_source_uuid", false),
            (post.clone(), "/payments/nope/cancel", token.as_str(), "", "payment_uuid", true),
            (reqwest::Method::PUT, "/payments/nope/custom-parameters", token.as_str(), "{}", "payment_uuid", true),
            (reqwest::Method::PATCH, "/payments/nope/custom-parameters", token.as_str(), "{}", "payment_uuid", true),
            (post.clone(), "/payments/nope/refunds", token.as_str(), "", "payment_uuid", false),
            (reqwest::Method::GET, "/payment-sources/nope", token.as_str(), "", "payment_source_uuid", false),
            (reqwest::Method::PUT, "/payment-sources/nope/custom-parameters", token.as_str(), "{}", "payment_source_uuid", true),
            (reqwest::Method::GET, "/supporters/nope", token.as_str(), "", "supporter_uuid", false),
            (reqwest::Method::PATCH, "/supporters/nope", token.as_str(), "{}", "supporter_uuid", false),
            (reqwest::Method::GET, "/payouts/nope", token.as_str(), "", "payout_uuid", false),
            // The test provider's pages.
            (reqwest::Method::GET, "/test-psp/3ds/nope", token.as_str(), "", "payment_uuid", false),
            (post.clone(), "/test-psp/3ds/nope/approve", token.as_str(), "", "payment_uuid", false),
            (post.clone(), "/test-psp/3ds/nope/decline", token.as_str(), "", "payment_uuid", false),
            (post.clone(), "/test-psp/sepa/nope/settle", token.as_str(), "", "payment_uuid", false),
        ];
        for (method, path, token, body, parameter, shape_c) in cases {
            let content_type = (!body.is_empty()).then_some("application/json");
            let (status, err) = send(&w, method.clone(), path, token, content_type, body).await;
            assert_eq!(status, 400, "{method} {path}: {err}");
            let said = message(&err);
            assert!(said.contains(parameter) && said.contains("UUID"), "{method} {path}: {err}");
            assert_eq!(err.get("errors").is_none() && err.get("error").is_none(), shape_c, "{method} {path}: {err}");
        }
        // A decision the page does not offer is no route, whatever the uuid.
        let (status, _) = send(&w, post, "/test-psp/3ds/nope/maybe", &token, None, "").await;
        assert_eq!(status, 404);
    }

    async fn a_refund_body_that_cannot_be_read_refunds_nothing(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (_, paid, _) = w.post("/payments", &token, &card_payment(&account, "1050"), None).await;
        let uuid = paid["uuid"].as_str().unwrap();
        let path = format!("/payments/{uuid}/refunds");
        let mut bodies = unreadable();
        bodies.push((Some("application/json"), r#"{"amount": null}"#, "amount"));
        bodies.push((Some("application/json"), r#"{"amount": "0.01"}"#, "amount"));
        for (content_type, body, says) in bodies {
            let (status, err) = send(&w, reqwest::Method::POST, &path, &token, content_type, body).await;
            assert_eq!(status, 400, "{content_type:?} {body}: {err}");
            assert!(message(&err).contains(says), "{content_type:?} {body}: {err}");
        }
        let (_, unchanged) = w.get(&format!("/payments/{uuid}"), &token).await;
        assert_eq!(unchanged["refunded_amount"]["value"], "0");
        assert_eq!(unchanged["refunds"], json!([]));

        // An empty body, and no body at all, are the documented default: the residual.
        let (status, refund) = send(&w, reqwest::Method::POST, &path, &token, Some("application/json"), "").await;
        assert_eq!(status, 200, "{refund}");
        assert_eq!(refund["amount"]["value"], "1050");
    }

    async fn a_cancel_body_that_cannot_be_read_cancels_nothing(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let mut twint = card_payment(&account, "500");
        twint["payment_method"] = json!("twint");
        twint.as_object_mut().unwrap().remove("payment_information");
        let (status, pending, _) = w.post("/payments", &token, &twint, None).await;
        assert_eq!((status, pending["status"].as_str()), (201, Some("pending")), "{pending}");
        let uuid = pending["uuid"].as_str().unwrap();
        let path = format!("/payments/{uuid}/cancel");
        let mut bodies = unreadable();
        bodies.push((Some("application/json"), r#"{"reason": 5}"#, "reason"));
        let long = format!(r#"{{"reason": "{}"}}"#, "x".repeat(1001));
        bodies.push((Some("application/json"), Box::leak(long.into_boxed_str()), "reason"));
        for (content_type, body, says) in bodies {
            let (status, err) = send(&w, reqwest::Method::POST, &path, &token, content_type, body).await;
            assert_eq!(status, 400, "{content_type:?} {body}: {err}");
            assert!(message(&err).contains(says), "{content_type:?} {body}: {err}");
        }
        let (_, still) = w.get(&format!("/payments/{uuid}"), &token).await;
        assert_eq!(still["status"], "pending");

        let (status, cancelled) = send(&w, reqwest::Method::POST, &path, &token, Some("application/json"), r#"{"reason": "donor changed their mind"}"#).await;
        assert_eq!(status, 200, "{cancelled}");
        let (_, fetched) = w.get(&format!("/payments/{uuid}"), &token).await;
        assert_eq!(fetched["status"], "cancelled");
        assert_eq!(fetched["cancel_reason"], "donor changed their mind");
    }

    async fn a_supporter_patch_of_the_wrong_shape_changes_nothing(backend) {
        let w = world(backend).await;
        let (org, _, token) = merchant(&w).await;
        let (status, created, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org, "first_name": "Ada"}), None).await;
        assert_eq!(status, 201, "{created}");
        let path = format!("/supporters/{}", created["uuid"].as_str().unwrap());
        for (content_type, body, says) in unreadable() {
            let (status, err) = send(&w, reqwest::Method::PATCH, &path, &token, content_type, body).await;
            assert_eq!(status, 400, "{content_type:?} {body}: {err}");
            assert!(message(&err).contains(says), "{content_type:?} {body}: {err}");
        }
        let (_, fetched) = w.get(&path, &token).await;
        assert_eq!(fetched, created);
    }

    async fn every_offending_property_is_named_once(backend) {
        let w = world(backend).await;
        let (org, account, token) = merchant(&w).await;
        let mut body = card_payment(&account, "1050");
        body["payment_information"]["expiry_month"] = json!("December");
        body["payment_information"]["expiry_year"] = json!([2030]);
        let (status, err, _) = w.post("/payments", &token, &body, None).await;
        assert_eq!(status, 400, "{err}");
        let mut named: Vec<&str> = err["errors"].as_array().unwrap().iter().map(|i| i["property"].as_str().unwrap()).collect();
        named.sort_unstable();
        assert_eq!(named, ["payment_information.expiry_month", "payment_information.expiry_year"], "{err}");

        let (status, err, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org, "first_name": 1, "city": true, "email": "not an e-mail"}), None).await;
        assert_eq!(status, 400, "{err}");
        let items = err.get("errors").or_else(|| err.pointer("/error/message")).unwrap().as_array().unwrap();
        let mut named: Vec<&str> = items.iter().map(|i| i["property"].as_str().unwrap()).collect();
        named.sort_unstable();
        assert_eq!(named, ["city", "first_name"], "{err}");

        let deep = format!("{{\"query\": {}{}}}", "[".repeat(300), "]".repeat(300));
        let (status, err) = send(&w, reqwest::Method::POST, "/search/payments", &token, Some("application/json"), &deep).await;
        assert_eq!(status, 400);
        assert!(message(&err).contains("nested more than 128 levels"), "{err}");
    }

    async fn amounts_are_capped_and_sums_never_overflow(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        for value in ["9223372036854775807", "10000000000000"] {
            let (status, err, _) = w.post("/payments", &token, &card_payment(&account, value), None).await;
            assert_eq!(status, 400, "{value}: {err}");
            assert_eq!(err["errors"][0]["property"], "amount.value", "{err}");
            assert!(message(&err).contains("at most 9999999999999 minor units in CHF"), "{err}");
        }
        let (status, largest, _) = w.post("/payments", &token, &card_payment(&account, "9999999999999"), None).await;
        assert_eq!(status, 201, "{largest}");
        let (status, _, _) = w.post("/payments", &token, &card_payment(&account, "9999999999999"), None).await;
        assert_eq!(status, 201);

        // Rows written before the cap (or by hand) may hold anything a BIGINT holds.
        let account_uuid = account.clone();
        w.payments.query(move |db| {
            use diesel::connection::SimpleConnection;
            let sql = format!("UPDATE payments SET amount_value = 9223372036854775807 WHERE account_uuid = '{account_uuid}'");
            coffer_store::db_run!(db: { db.batch_execute(&sql) })
        }).await.unwrap();
        let search = json!({"query": {"$match": {"account_uuid": account}}, "size": 0,
            "aggs": {"amounts": {"type": "stats", "field": "amount.value"}}});
        let (status, found, _) = w.post("/search/payments", &token, &search, None).await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["aggregations"]["amounts"], json!({
            "count": 2, "min": "9223372036854775807", "max": "9223372036854775807",
            "sum": "18446744073709551614", "avg": "9223372036854775807",
        }));
    }

    async fn searches_are_bounded_and_speak_raisenow(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (_, paid, _) = w.post("/payments", &token, &card_payment(&account, "1050"), None).await;

        let clauses: Vec<Value> = (0..1000).map(|i| json!({"$match": {"custom_parameters.n": i.to_string()}})).collect();
        let (status, err, _) = w.post("/search/payments", &token, &json!({"query": {"$or": clauses}}), None).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["errors"][0]["property"], "query", "{err}");
        let (status, err, _) = w.post("/search/payments", &token, &json!({"query": {"$match": {}}, "from": 1_000_000}), None).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "from", "{err}");

        let (status, found, _) = w.post("/search/payments", &token, &json!({
            "query": {"$and": [{"$term": {"status": "succeeded"}}, {"$terms": {"payment_method": ["card", "twint"]}}]},
            "includes": [],
        }), None).await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["summary"]["hits"], 1);
        assert_eq!(found["hits"][0]["uuid"], paid["uuid"]);
        assert_eq!(found["hits"][0]["amount"], paid["amount"], "an empty includes keeps every field");
    }
}
