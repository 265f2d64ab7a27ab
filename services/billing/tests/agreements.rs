//! POST /search/payment-agreements (payments' copy of billing's subscriptions beside its
//! payment sources) as the n8n RaiseNow node sends it: a recurring agreement per
//! subscription, a one-off one per source no subscription uses. Billing runs here because
//! only it makes subscriptions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

/// How long payments may take to hear of a subscription before a test gives up.
const DEADLINE: Duration = Duration::from_secs(30);

async fn search(w: &World, token: &str, body: Value) -> (u16, Value) {
    let (status, answer, _) = w
        .post("/search/payment-agreements", token, &body, None)
        .await;
    (status, answer)
}

/// Searches until `done` holds of the answer, or fails once [`DEADLINE`] has passed:
/// agreements follow subscriptions' events, a moment behind.
async fn search_until(w: &World, token: &str, body: Value, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let (status, found) = search(w, token, body.clone()).await;
        assert_eq!(status, 200, "{found}");
        if done(&found) {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never came: {found}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Waits until billing has heard of the payment source `uuid`.
async fn known_source(w: &World, uuid: &str) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let key = uuid.to_owned();
        let known = w.more[0]
            .query(move |db| coffer_billing::replica::source(db, &key))
            .await
            .unwrap();
        if known.is_some() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "billing never learnt of source {uuid}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn created(w: &World, path: &str, token: &str, body: Value) -> Value {
    let (status, made, _) = w.post(path, token, &body, None).await;
    assert_eq!(status, 201, "{made}");
    made
}

fn text(v: &Value, field: &str) -> String {
    v[field].as_str().unwrap().to_owned()
}

/// The body the n8n node sends, with `query` and `sort` as given.
fn n8n(query: Value, sort: Value) -> Value {
    json!({"query": query, "aggs": {}, "excludes": [], "includes": [], "size": 50, "from": 0, "sort": sort})
}

fn newest_first() -> Value {
    json!([{"field": "created", "direction": "desc"}])
}

coffer_testkit::backend_tests! {
    async fn subscriptions_and_unused_sources_are_searched_as_agreements(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let ada = created(&w, "/supporters", &token, json!({"organisation_uuid": org, "first_name": "Ada", "last_name": "Lovelace"})).await;
        let grace = created(&w, "/supporters", &token, json!({"organisation_uuid": org, "first_name": "Grace", "last_name": "Hopper"})).await;
        // A card kept once (the one-off agreement), then a SEPA mandate a subscription charges
        // (the recurring one), each a little later than the one before.
        let card = created(&w, "/payment-sources", &token, json!({"account_uuid": account, "payment_method": "card",
            "amount": {"value": "100", "currency": "CHF"}, "supporter": {"uuid": grace["uuid"]},
            "custom_parameters": {"campaign": "spring"},
            "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}})).await;
        w.app.clock.advance(time::Duration::seconds(10));
        let mandate = created(&w, "/payment-sources", &token, json!({"account_uuid": account, "payment_method": "sepa_dd",
            "amount": {"value": "100", "currency": "EUR"},
            "payment_information": {"iban": "CH93 0076 2011 6238 5295 7", "account_holder": "Ada Lovelace"}})).await;
        let reference = mandate["payment_information"]["mandate_reference"].clone();
        assert!(reference.is_string(), "{mandate}");
        known_source(&w, &text(&mandate, "uuid")).await;
        known_to_billing(&w, &account).await;
        w.app.clock.advance(time::Duration::seconds(10));
        let subscription = created(&w, "/subscriptions", &token, json!({"account_uuid": account,
            "payment_source_uuid": mandate["uuid"], "supporter_uuid": ada["uuid"], "test_mode": true, "currency": "EUR", "amount": 1500,
            "recurring_interval": "monthly", "timezone": "Europe/Zurich", "custom_parameters": {"campaign": "winter"}})).await;

        // Until payments hears of the subscription, its mandate is a one-off agreement.
        let all = search_until(&w, &token, n8n(json!({"$match": {}}), newest_first()),
            |found| found["hits"][0]["type"] == "recurring").await;
        assert_eq!(all["summary"]["hits"], 2, "{all}");
        let (recurring, one_off) = (&all["hits"][0], &all["hits"][1]);
        assert_eq!(*recurring, json!({
            "uuid": subscription["uuid"], "organisation_uuid": org.to_string(), "account_uuid": account,
            "type": "recurring", "status": "pending", "amount": 1500, "currency": "EUR",
            "interval": subscription["recurring_interval"], "supporter_uuid": ada["uuid"],
            "supporter": {"uuid": ada["uuid"], "first_name": "Ada", "last_name": "Lovelace"},
            "payment_method": "sepa_dd", "payment_source_uuid": mandate["uuid"],
            "subscription_uuid": subscription["uuid"], "mandate_reference": reference,
            "custom_parameters": {"campaign": "winter"}, "test_mode": true, "created": subscription["created"],
        }), "{all}");
        assert_eq!(*one_off, json!({
            "uuid": card["uuid"], "organisation_uuid": org.to_string(), "account_uuid": account,
            "type": "one_off", "status": "active", "amount": null, "currency": null, "interval": null,
            "supporter_uuid": grace["uuid"],
            "supporter": {"uuid": grace["uuid"], "first_name": "Grace", "last_name": "Hopper"},
            "payment_method": "card", "payment_source_uuid": card["uuid"], "subscription_uuid": null,
            "mandate_reference": null, "custom_parameters": {"campaign": "spring"}, "test_mode": true,
            "created": card["created"],
        }), "{all}");
        assert!(recurring["created"].as_i64() > one_off["created"].as_i64());

        // Oldest first, when asked.
        let (_, oldest) = search(&w, &token, n8n(json!({"$match": {}}), json!([{"field": "created", "direction": "asc"}]))).await;
        assert_eq!(oldest["hits"][0]["uuid"], card["uuid"], "{oldest}");

        // `$term` on each field the node's users filter by.
        for (query, expected) in [
            (json!({"$term": {"type": "one_off"}}), vec![&card]),
            (json!({"$term": {"type": "recurring"}}), vec![&subscription]),
            (json!({"$term": {"status": "pending"}}), vec![&subscription]),
            (json!({"$term": {"status": "active"}}), vec![&card]),
            (json!({"$term": {"organisation_uuid": org}}), vec![&subscription, &card]),
            (json!({"$term": {"subscription_uuid": subscription["uuid"]}}), vec![&subscription]),
            (json!({"$term": {"supporter.last_name": "Hopper"}}), vec![&card]),
            (json!({"$term": {"supporter.last_name": "Lovelace"}}), vec![&subscription]),
            (json!({"$term": {"mandate_reference": reference}}), vec![&subscription]),
            (json!({"$term": {"custom_parameters.campaign": "winter"}}), vec![&subscription]),
        ] {
            let (status, found) = search(&w, &token, n8n(query.clone(), newest_first())).await;
            assert_eq!(status, 200, "{query}: {found}");
            let uuids: Vec<&Value> = found["hits"].as_array().unwrap().iter().map(|h| &h["uuid"]).collect();
            let expected: Vec<&Value> = expected.iter().map(|e| &e["uuid"]).collect();
            assert_eq!(uuids, expected, "{query}");
        }

        // Another organisation sees none of them, even when it names them.
        let (_, _, other) = billing_merchant(&w).await;
        for query in [json!({"$match": {}}), json!({"$term": {"organisation_uuid": org}})] {
            let (status, found) = search(&w, &other, n8n(query, newest_first())).await;
            assert_eq!(status, 200, "{found}");
            assert_eq!(found["summary"]["hits"], 0, "{found}");
            assert_eq!(found["hits"], json!([]));
        }

        // A change of the subscription shows once its event has reached payments.
        let path = format!("/subscriptions/{}", text(&subscription, "uuid"));
        let (status, changed) = w.patch(&path, &token, &json!({"amount": 2500})).await;
        assert_eq!(status, 200, "{changed}");
        let by_uuid = n8n(json!({"$term": {"uuid": subscription["uuid"]}}), newest_first());
        let found = search_until(&w, &token, by_uuid, |found| found["hits"][0]["amount"] == 2500).await;
        assert_eq!(found["summary"]["hits"], 1);

        // An older announcement arriving late (a redelivery) changes nothing.
        let mut stale = subscription.clone();
        stale["amount"] = json!(1);
        let older = coffer_payments::agreements::domain::KeptSubscription::announced(&text(&subscription, "uuid"), &stale).unwrap();
        w.payments.query(move |db| coffer_payments::agreements::commands::keep_subscription(db, &older, 0)).await.unwrap();
        let (_, found) = search(&w, &token, n8n(json!({"$term": {"uuid": subscription["uuid"]}}), newest_first())).await;
        assert_eq!(found["hits"][0]["amount"], 2500, "{found}");

        // Cancelled, the subscription charges its source no more: the mandate is a one-off
        // agreement again, beside the cancelled recurring one.
        let (status, cancelled, _) = w.post(&format!("{path}/cancel"), &token, &json!({}), None).await;
        assert_eq!(status, 200, "{cancelled}");
        let source = subscription["payment_source_uuid"].clone();
        let of_source = n8n(json!({"$term": {"payment_source_uuid": source}}), newest_first());
        let found = search_until(&w, &token, of_source, |found| found["summary"]["hits"] == 2).await;
        let kinds: Vec<(&Value, &Value)> = found["hits"].as_array().unwrap().iter().map(|h| (&h["type"], &h["status"])).collect();
        assert!(kinds.contains(&(&json!("recurring"), &json!("cancelled"))), "{found}");
        assert!(kinds.contains(&(&json!("one_off"), &json!("active"))), "{found}");

        // A field agreements do not have is named where it appears.
        let (status, err) = search(&w, &token, json!({"query": {"$and": [{"$term": {"type": "one_off"}}, {"$term": {"password": "x"}}]}})).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["errors"][0]["property"], "query.$and[1].$term.password", "{err}");
    }
}
