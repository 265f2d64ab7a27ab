//! The forms of RaiseNow's search that its clients send (docs/decisions/search-forms.md):
//! `sort` as an object, bounds as digit strings and as dates in a `format`, the `range`
//! aggregation, and a JSON body labelled as a form, on both databases.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

async fn search(w: &World, token: &str, body: Value) -> (u16, Value) {
    let (status, answer, _) = w.post("/search/payments", token, &body, None).await;
    (status, answer)
}

fn properties(answer: &Value) -> Vec<&str> {
    answer["errors"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i["property"].as_str())
                .collect()
        })
        .unwrap_or_default()
}

/// Three card payments of `account`, of 5, 15 and 25 francs.
async fn pay_500_1500_2500(w: &World, token: &str, account: &str) {
    for value in ["500", "1500", "2500"] {
        let body = json!({"account_uuid": account, "payment_method": "card", "amount": {"value": value, "currency": "CHF"},
            "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}});
        let (status, p, _) = w.post("/payments", token, &body, None).await;
        assert_eq!(status, 201, "{p}");
    }
}

coffer_testkit::backend_tests! {
    async fn raisenow_forms_of_sort_bounds_and_ranges(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        pay_500_1500_2500(&w, &token, &account).await;
        let count = |q: Value| {
            let (w, token) = (&w, token.clone());
            async move {
                let (status, answer) = search(w, &token, json!({"query": q})).await;
                assert_eq!(status, 200, "{answer}");
                answer["summary"]["hits"].as_i64().unwrap()
            }
        };
        // Every payment is made at the test clock's start, 2026-01-01T00:00:00Z.
        assert_eq!(count(json!({"$range": {"created": {"gt": "1700000000"}}})).await, 3);
        assert_eq!(count(json!({"$range": {"amount.value": {"gte": "1000", "lt": 2500}}})).await, 1);
        let day = |bounds: Value| json!({"$range": {"created": bounds}});
        assert_eq!(count(day(json!({"gte": "2026-01-01", "lte": "2026-01-01", "format": "yyyy-MM-dd"}))).await, 3);
        assert_eq!(count(day(json!({"lt": "2026-01-01", "format": "yyyy-MM-dd"}))).await, 0);
        // New York's 2026-01-01 begins five hours after UTC's.
        assert_eq!(count(day(json!({"lt": "2026-01-01", "format": "yyyy-MM-dd", "time_zone": "America/New_York"}))).await, 3);
        assert_eq!(count(day(json!({"gte": "2026-01-01T00:00:00", "format": "yyyy-MM-dd'T'HH:mm:ss"}))).await, 3);
        assert_eq!(count(day(json!({"gte": "1767225600000", "format": "epoch_millis"}))).await, 3);

        let (status, sorted) = search(&w, &token, json!({"query": {"$match": {"account_uuid": account}},
            "sort": {"amount.value": "asc"}})).await;
        assert_eq!(status, 200, "{sorted}");
        let amounts: Vec<&str> = sorted["hits"].as_array().unwrap().iter().map(|h| h["amount"]["value"].as_str().unwrap()).collect();
        assert_eq!(amounts, ["500", "1500", "2500"]);

        let (status, ranged) = search(&w, &token, json!({"query": {"$match": {"account_uuid": account}}, "size": 0,
            "aggs": {"amounts": {"type": "range", "field": "amount.value", "ranges": [{"to": 1000}, {"from": 1000, "to": 2000}, {"from": "1000"}, {"key": "all"}]},
                     "days": {"type": "range", "field": "created", "format": "yyyy-MM-dd",
                              "ranges": [{"from": "2025-12-01", "to": "2026-01-01"}, {"from": "2026-01-01", "to": "2026-01-02"}]}}})).await;
        assert_eq!(status, 200, "{ranged}");
        assert_eq!(ranged["aggregations"]["amounts"], json!([
            {"key": "*-1000", "to": 1000, "doc_count": 1},
            {"key": "1000-2000", "from": 1000, "to": 2000, "doc_count": 1},
            {"key": "1000-*", "from": 1000, "doc_count": 2},
            {"key": "all", "doc_count": 3},
        ]));
        assert_eq!(ranged["aggregations"]["days"], json!([
            {"key": "1764547200-1767225600", "from": 1_764_547_200, "to": 1_767_225_600, "doc_count": 0},
            {"key": "1767225600-1767312000", "from": 1_767_225_600, "to": 1_767_312_000, "doc_count": 3},
        ]));

        let (status, refused) = search(&w, &token, json!({"query": {"$range": {"created": {"gte": "2026-01-01", "format": "dd.MM.yyyy"}}},
            "sort": {"amount.value": "up"},
            "aggs": {"a": {"type": "range", "field": "amount.value", "ranges": [{"from": "many"}]}}})).await;
        assert_eq!(status, 400, "{refused}");
        let mut named = properties(&refused);
        named.sort_unstable();
        assert_eq!(named, ["aggs.a.ranges[0].from", "query.$range.created.format", "sort.amount.value"], "{refused}");

        // PowerShell's Invoke-WebRequest labels a POST body a form unless told otherwise.
        let res = w.app.http.post(w.app.url("/search/payments")).bearer_auth(&token)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(json!({"query": {"$range": {"created": {"gt": 0}}}, "sort": {"uuid": "desc"}}).to_string())
            .send().await.unwrap();
        assert_eq!(res.status(), 200);
        let found: Value = res.json().await.unwrap();
        assert_eq!(found["summary"]["hits"], 3);
    }

    async fn every_fault_is_named_where_it_stands(backend) {
        let w = world(backend).await;
        let (_, _, token) = merchant(&w).await;
        let refused = |path: &'static str, body: Value| {
            let (w, token) = (&w, token.clone());
            async move {
                let (status, answer, _) = w.post(path, &token, &body, None).await;
                assert_eq!(status, 400, "{body}: {answer}");
                let mut named: Vec<String> = properties(&answer).into_iter().map(str::to_owned).collect();
                named.sort_unstable();
                // A field not sortable and a wrong direction share `sort.<field>`.
                named.dedup();
                (named, answer)
            }
        };
        let agreements = "/search/payment-agreements";
        for (query, property) in [
            (json!({"$match": {"amount": "abc"}}), "query.$match.amount"),
            (json!({"$match": {"test_mode": "yes"}}), "query.$match.test_mode"),
            (json!({"$match": {"status": null}}), "query.$match.status"),
        ] {
            let (named, answer) = refused(agreements, json!({"query": query})).await;
            assert_eq!(named, [property], "{answer}");
        }
        let (named, answer) = refused(agreements, json!({"query": {"$and": [
            {"$match": {"amount": "a"}}, {"$match": {"test_mode": "x"}}, {"$match": {"nope": 1}}]}})).await;
        assert_eq!(named, ["query.$and[0].$match.amount", "query.$and[1].$match.test_mode", "query.$and[2].$match.nope"], "{answer}");

        let (named, answer) = refused("/search/payments", json!({"query": {"$match": {}}, "size": "x", "from": -1, "sort": {"a": "b"}})).await;
        assert_eq!(named, ["from", "size", "sort.a"], "{answer}");
        let size = answer["errors"].as_array().unwrap().iter().find(|e| e["property"] == "size").unwrap();
        assert_eq!(size["message"], "must be a whole number between 0 and 10000", "{answer}");

        // A huge bad query makes an answer of at most 100 faults.
        let many: Vec<Value> = (0..150).map(|i| json!({"$match": {format!("nope{i}"): 1}})).collect();
        let (named, answer) = refused("/search/payments", json!({"query": {"$or": many}})).await;
        assert_eq!(named.len(), 100, "{answer}");
    }

    async fn elasticsearch_sorts_and_every_entry_and_aggregation_checked(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        pay_500_1500_2500(&w, &token, &account).await;
        for (sort, expected) in [
            (json!([{"field": "amount.value", "direction": "ASC"}, {"field": "created", "direction": "DESC"}]), ["500", "1500", "2500"]),
            (json!({"amount.value": "DESC"}), ["2500", "1500", "500"]),
            (json!({"amount.value": {"order": "asc"}}), ["500", "1500", "2500"]),
            (json!([{"amount.value": {"order": "desc", "missing": "_last"}}, {"created": "asc"}]), ["2500", "1500", "500"]),
        ] {
            let (status, sorted) = search(&w, &token, json!({"query": {"$match": {"account_uuid": account}}, "sort": sort})).await;
            assert_eq!(status, 200, "{sort}: {sorted}");
            let amounts: Vec<&str> = sorted["hits"].as_array().unwrap().iter().map(|h| h["amount"]["value"].as_str().unwrap()).collect();
            assert_eq!(amounts, expected, "{sort}");
        }
        let (status, refused) = search(&w, &token, json!({"query": {"$match": {}},
            "sort": [{"field": "created"}, {"field": "nope"}, {"created": {"order": "up"}}],
            "aggs": {"x": "y", "t": {"type": "term", "field": "status", "size": "abc"}, "u": {"field": "nope"}}})).await;
        assert_eq!(status, 400, "{refused}");
        let mut named = properties(&refused);
        named.sort_unstable();
        assert_eq!(named, ["aggs.t.size", "aggs.u.type", "aggs.x", "sort[1].field", "sort[2].created.order"], "{refused}");
    }
}
