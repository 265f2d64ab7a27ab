//! Paging with `search_after` by fields that may hold no value, on both databases: every
//! row comes exactly once, in the order of one big page, rows without a value last in
//! either direction (docs/decisions/search-forms.md, "Rows without a value").
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_payments::agreements::{commands::keep_subscription, domain::KeptSubscription};
use common::*;
use serde_json::{Value, json};

async fn search(w: &World, path: &str, token: &str, body: Value) -> Value {
    let (status, answer, _) = w.post(path, token, &body, None).await;
    assert_eq!(status, 200, "{body}: {answer}");
    answer
}

fn uuids(page: &Value) -> Vec<String> {
    page["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["uuid"].as_str().unwrap().to_owned())
        .collect()
}

/// The value of a hit at a dotted path.
fn at<'a>(hit: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(hit, |v, part| &v[part])
}

/// Pages through every row of `path` sorted by `field` one hit at a time, in both
/// directions, and checks each walk against one big page: every row once, in its order,
/// the rows without a value at the end.
async fn walks_every_row_once(w: &World, path: &str, token: &str, field: &str, total: usize) {
    for direction in ["asc", "desc"] {
        let sort = json!([{"field": field, "direction": direction}]);
        let whole = search(
            w,
            path,
            token,
            json!({"query": {"$match": {}}, "sort": sort, "size": 100}),
        )
        .await;
        let expected = uuids(&whole);
        assert_eq!(expected.len(), total, "{whole}");
        let values: Vec<&Value> = whole["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| at(h, field))
            .collect();
        let first_null = values
            .iter()
            .position(|v| v.is_null())
            .unwrap_or(values.len());
        assert!(
            values[first_null..].iter().all(|v| v.is_null()),
            "{field} {direction}: nulls last: {values:?}"
        );
        let mut seen = Vec::new();
        let mut after: Option<Value> = None;
        for _ in 0..=total {
            let mut body = json!({"query": {"$match": {}}, "sort": sort, "size": 1});
            if let Some(a) = &after {
                body["search_after"] = a.clone();
            }
            let page = search(w, path, token, body).await;
            assert_eq!(page["summary"]["hits"], total, "{page}");
            let hits = uuids(&page);
            if hits.is_empty() {
                break;
            }
            seen.extend(hits);
            after = Some(page["summary"]["last_sort_values"].clone());
        }
        assert_eq!(seen, expected, "{field} {direction}");
    }
}

async fn made(w: &World, path: &str, token: &str, body: Value) -> Value {
    let (status, made, _) = w.post(path, token, &body, None).await;
    assert_eq!(status, 201, "{made}");
    made
}

fn card() -> Value {
    json!({"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"})
}

coffer_testkit::backend_tests! {
    async fn agreements_page_through_null_amounts_and_references(backend) {
        let w = world(backend).await;
        let (org, account, token) = w.merchant().await;
        let ada = made(&w, "/supporters", &token, json!({"organisation_uuid": org, "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org"})).await;
        let grace = made(&w, "/supporters", &token, json!({"organisation_uuid": org, "first_name": "Grace"})).await;
        // Three one-off agreements (no amount, currency, interval or subscription), one
        // with a supporter and a mandate each only sometimes.
        for (method, supporter, information) in [
            ("card", Some(&ada), card()),
            ("card", None, card()),
            ("sepa_dd", Some(&grace), json!({"iban": "CH93 0076 2011 6238 5295 7", "account_holder": "Grace Hopper"})),
        ] {
            let mut body = json!({"account_uuid": account, "payment_method": method,
                "amount": {"value": "100", "currency": "CHF"}, "payment_information": information});
            if let Some(s) = supporter {
                body["supporter"] = json!({"uuid": s["uuid"]});
            }
            made(&w, "/payment-sources", &token, body).await;
        }
        // Three recurring ones, two of the same amount, as billing announces them.
        for (n, amount, currency, supporter) in [(1, 2500, "EUR", Some(&ada)), (2, 1500, "CHF", None), (3, 2500, "CHF", None)] {
            let uuid = format!("00000000-0000-4000-8000-00000000000{n}");
            let announced = json!({"organisation_uuid": org, "account_uuid": account,
                "supporter_uuid": supporter.map(|s| s["uuid"].clone()), "payment_source_uuid": format!("gone-{n}"),
                "payment_method": "card", "test_mode": true, "subscription_status": "active", "amount": amount,
                "currency": currency, "recurring_interval": "0 0 1 * *", "custom_parameters": {}, "created": 1_700_000_000 + n});
            let kept = KeptSubscription::announced(&uuid, &announced).unwrap();
            w.payments.query(move |db| keep_subscription(db, &kept, 1)).await.unwrap();
        }
        let path = "/search/payment-agreements";

        // The review's case: the last hit of an ascending page by amount has none.
        let mut body = json!({"query": {"$match": {}}, "size": 4, "sort": {"amount": "asc"}});
        let page = search(&w, path, &token, body.clone()).await;
        assert_eq!(page["summary"]["last_sort_values"][0], Value::Null, "{page}");
        body["search_after"] = page["summary"]["last_sort_values"].clone();
        assert_eq!(uuids(&search(&w, path, &token, body).await).len(), 2);

        for field in ["amount", "currency", "interval", "subscription_uuid", "mandate_reference", "supporter_uuid",
            "supporter.first_name", "supporter.last_name", "supporter.email", "status", "created", "uuid", "test_mode"] {
            walks_every_row_once(&w, path, &token, field, 6).await;
        }
    }

    async fn payments_page_through_null_supporters_and_subscriptions(backend) {
        let w = world(backend).await;
        let (_, account, token) = w.merchant().await;
        for (value, supporter) in [("500", true), ("700", false), ("700", true), ("900", false)] {
            let mut body = json!({"account_uuid": account, "payment_method": "card",
                "amount": {"value": value, "currency": "CHF"}, "payment_information": card()});
            if supporter {
                body["supporter"] = json!({"first_name": "Ada"});
            }
            made(&w, "/payments", &token, body).await;
        }
        for field in ["supporter_uuid", "subscription_uuid", "amount.value", "created"] {
            walks_every_row_once(&w, "/search/payments", &token, field, 4).await;
        }
    }

    async fn pages_sorted_by_amount_within_a_range_are_the_same_along_either_index(backend) {
        // Twelve payments of one account over three days, two of each amount in the
        // range. Asked by pages over the last two days, sorted by amount: on SQLite the
        // roll-ups count 8 of the account's 12 in the range, so pages that want at most 5
        // (every `search_after` page, `from` 0 and 2) are read along the amount index
        // (rollup/ordered.rs), the others along the range's; with `$exists: uuid` beside
        // the range nothing is rolled up and SQLite plans alone. Every way gives the
        // order worked out here. (Naming an index that does not exist in ROLLUPS fails
        // this test on SQLite: the first way does take the amount index.)
        let w = world(backend).await;
        let (organisation, account, _) = w.merchant().await;
        let day = |d: i64, hour: i64| time::OffsetDateTime::from_unix_timestamp(1_777_852_800 + d * 86_400 + hour * 3600).unwrap();
        let mut in_range = Vec::new();
        for d in 0..3 {
            for (hour, value) in [(1, 300), (5, 900), (9, 300), (13, 4200)] {
                w.app.clock.set(day(d, hour));
                let token = w.token(organisation).await;
                let body = json!({"account_uuid": account, "payment_method": "twint",
                    "amount": {"value": (value + d * 10).to_string(), "currency": "CHF"}});
                let payment = made(&w, "/payments", &token, body).await;
                if d > 0 {
                    in_range.push((value + d * 10, payment["uuid"].as_str().unwrap().to_owned()));
                }
            }
        }
        in_range.sort_by(|a, b| b.cmp(a));
        let expected: Vec<String> = in_range.into_iter().map(|(_, uuid)| uuid).collect();
        let token = w.token(organisation).await;
        let range = json!({"$range": {"created": {"gte": day(1, 0).unix_timestamp(), "lt": day(3, 0).unix_timestamp()}}});
        let sort = json!([{"field": "amount.value", "direction": "desc"}]);
        let conditions = [
            json!([{"$match": {"account_uuid": account}}, range]),
            json!([{"$match": {"account_uuid": account}}, range, {"$exists": "uuid"}]),
        ];
        for conditions in conditions {
            let query = json!({"$and": conditions});
            let whole = search(&w, "/search/payments", &token, json!({"query": query, "sort": sort, "size": 100})).await;
            assert_eq!(uuids(&whole), expected, "{query}");
            // By search_after, two at a time.
            let (mut seen, mut after) = (Vec::new(), None::<Value>);
            for _ in 0..5 {
                let mut body = json!({"query": query, "sort": sort, "size": 2});
                if let Some(a) = &after {
                    body["search_after"] = a.clone();
                }
                let page = search(&w, "/search/payments", &token, body).await;
                assert_eq!(page["summary"]["hits"], 8, "{page}");
                seen.extend(uuids(&page));
                after = Some(page["summary"]["last_sort_values"].clone());
            }
            assert_eq!(seen, expected, "{query}");
            // By from, two at a time.
            let mut seen = Vec::new();
            for from in (0..8).step_by(2) {
                let page = search(&w, "/search/payments", &token, json!({"query": query, "sort": sort, "size": 2, "from": from})).await;
                seen.extend(uuids(&page));
            }
            assert_eq!(seen, expected, "{query}");
        }
    }
}
