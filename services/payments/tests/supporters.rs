//! Supporters through HTTP: create, get, update, list, tenancy and idempotency, and the
//! parts of a birth date wherever a supporter is written from a request.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

fn full(organisation: uuid::Uuid) -> Value {
    json!({
        "organisation_uuid": organisation,
        "raw": "Dr. Ada Lovelace, Seestrasse 5, 8002 Zürich",
        "raw_name": "Dr. Ada Lovelace",
        "legal_entity": "person",
        "honorific_prefix": "Dr.",
        "salutation": "ms",
        "first_name": "Ada",
        "middle_name": "King",
        "last_name": "Lovelace",
        "care_of": "Byron",
        "raw_address": "Seestrasse 5, 8002 Zürich",
        "street": "Seestrasse",
        "house_number": "5",
        "address_addendum": "3rd floor",
        "post_office_box": "Postfach 12",
        "postal_code": "8002",
        "city": "Zürich",
        "region_level_1": "ZH",
        "region_level_2": "Zürich",
        "country": "CH",
        "email": "ada@example.org",
        "phone": "+41 44 000 00 00",
        "birth_day": "10",
        "birth_month": "12",
        "birth_year": "1915",
        "locale": "de_CH",
        "custom_parameters": {"campaign": "winter", "rank": 3},
        "service_parameters": {"crm": {"id": 7}}
    })
}

coffer_testkit::backend_tests! {
    async fn create_get_and_update_keep_every_field(backend) {
        let w = world(backend).await;
        let org = w.organisation("Alpine Aid").await;
        let token = w.token(org).await;
        let body = full(org);
        let (status, created, _) = w.post("/supporters", &token, &body, None).await;
        assert_eq!(status, 201, "{created}");
        for (k, v) in body.as_object().unwrap() {
            match k.as_str() {
                "organisation_uuid" => assert_eq!(created[k], org.to_string()),
                "custom_parameters" => assert_eq!(created[k], json!({"campaign": "winter", "rank": "3"})),
                _ => assert_eq!(&created[k], v, "{k}"),
            }
        }
        assert_eq!(created["created"], coffer_testkit::START_UNIX);
        let uuid = created["uuid"].as_str().unwrap();

        let (status, fetched) = w.get(&format!("/supporters/{uuid}"), &token).await;
        assert_eq!(status, 200);
        assert_eq!(fetched, created);

        let (status, updated) = w
            .patch(&format!("/supporters/{uuid}"), &token, &json!({"city": "Basel", "middle_name": null, "custom_parameters": {"campaign": "spring"}}))
            .await;
        assert_eq!(status, 200, "{updated}");
        assert_eq!(updated["city"], "Basel");
        assert!(updated.get("middle_name").is_none(), "null clears a field");
        assert_eq!(updated["first_name"], "Ada", "absent fields are kept");
        assert_eq!(updated["custom_parameters"], json!({"campaign": "spring"}));
        assert_eq!(w.get(&format!("/supporters/{uuid}"), &token).await.1, updated);
    }

    async fn bad_input_is_400_in_shape_a_naming_each_property(backend) {
        let w = world(backend).await;
        let org = w.organisation("Alpine Aid").await;
        let token = w.token(org).await;
        let (status, err, _) = w
            .post("/supporters", &token, &json!({"organisation_uuid": org, "email": "not-an-email", "custom_parameters": {"nested": {"a": 1}}}), None)
            .await;
        assert_eq!(status, 400);
        assert!(err["request_id"].is_string());
        assert_eq!(err["error"]["http_code"], 400);
        let props: Vec<&str> = err["error"]["message"].as_array().unwrap().iter().map(|i| i["property"].as_str().unwrap()).collect();
        assert_eq!(props, ["email", "custom_parameters.nested"]);
        assert_eq!(err["error"]["message"][0]["code"], "error.validation.not_valid");

        let (status, err, _) = w.post("/supporters", &token, &json!({"first_name": "X"}), None).await;
        assert_eq!(status, 400);
        assert_eq!(err["error"]["message"][0]["property"], "organisation_uuid");
        assert_eq!(err["error"]["message"][0]["code"], "error.validation.not_null");

        let (status, err, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org, "first_name": 5}), None).await;
        assert_eq!(status, 400);
        assert_eq!(err["error"]["message"][0]["property"], "first_name");

        let (_, created, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org}), None).await;
        let path = format!("/supporters/{}", created["uuid"].as_str().unwrap());
        let (status, err) = w.patch(&path, &token, &json!({"email": "bad"})).await;
        assert_eq!(status, 400);
        assert_eq!(err["error"]["message"][0]["property"], "email");
        let (status, err) = w.patch(&path, &token, &json!({"organisation_uuid": org})).await;
        assert_eq!(status, 400);
        assert_eq!(err["error"]["message"][0]["property"], "organisation_uuid");
    }

    async fn tenants_are_kept_apart(backend) {
        let w = world(backend).await;
        let (a, b) = (w.organisation("A").await, w.organisation("B").await);
        let (token_a, token_b) = (w.token(a).await, w.token(b).await);
        let (_, supporter, _) = w.post("/supporters", &token_a, &json!({"organisation_uuid": a, "last_name": "Ann"}), None).await;
        let path = format!("/supporters/{}", supporter["uuid"].as_str().unwrap());
        assert_eq!(w.get(&path, &token_b).await.0, 403);
        assert_eq!(w.patch(&path, &token_b, &json!({"city": "X"})).await.0, 403);
        let (status, _, _) = w.post("/supporters", &token_b, &json!({"organisation_uuid": a}), None).await;
        assert_eq!(status, 403);
        assert_eq!(w.get(&format!("/supporters?organisation_uuid={a}"), &token_b).await.0, 403);
        let (_, list) = w.get("/supporters", &token_b).await;
        assert_eq!(list, json!([]));
        assert_eq!(w.get(&format!("/supporters/{}", uuid::Uuid::new_v4()), &token_a).await.0, 404);
        let res = w.app.get_anonymous("/supporters").await;
        assert_eq!(res.status(), 401);
        // An organisation identity never announced.
        let platform = w.app.platform_token();
        let (status, _, _) = w.post("/supporters", &platform, &json!({"organisation_uuid": uuid::Uuid::new_v4()}), None).await;
        assert_eq!(status, 404);
    }

    async fn list_pages_sorts_and_filters(backend) {
        let w = world(backend).await;
        let org = w.organisation("A").await;
        let token = w.token(org).await;
        for name in ["Meier", "Amrein", "Zbinden", "Keller"] {
            let (status, _, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org, "last_name": name}), None).await;
            assert_eq!(status, 201);
        }
        let names = |v: &Value| v.as_array().unwrap().iter().map(|s| s["last_name"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
        let (_, sorted) = w.get("/supporters?sort_by=last_name&sort_order=desc", &token).await;
        assert_eq!(names(&sorted), ["Zbinden", "Meier", "Keller", "Amrein"]);
        let (_, page) = w.get(&format!("/supporters?organisation_uuid={org}&sort_by=last_name&from=1&size=2"), &token).await;
        assert_eq!(names(&page), ["Keller", "Meier"]);
        let (status, err) = w.get("/supporters?sort_by=password&sort_order=up&size=x", &token).await;
        assert_eq!(status, 400);
        assert_eq!(err["error"]["message"][0]["property"], "size");
        let (status, err) = w.get("/supporters?sort_by=password&sort_order=up", &token).await;
        assert_eq!(status, 400);
        let props: Vec<&str> = err["error"]["message"].as_array().unwrap().iter().map(|i| i["property"].as_str().unwrap()).collect();
        assert_eq!(props, ["sort_by", "sort_order"]);
    }

    async fn an_idempotency_key_replays_or_conflicts(backend) {
        let w = world(backend).await;
        let org = w.organisation("A").await;
        let token = w.token(org).await;
        let body = json!({"organisation_uuid": org, "last_name": "Once"});
        let (s1, first, h1) = w.post("/supporters", &token, &body, Some("key-1")).await;
        let (s2, second, h2) = w.post("/supporters", &token, &body, Some("key-1")).await;
        assert_eq!((s1, s2), (201, 201));
        assert_eq!(first, second, "the first response, replayed");
        assert!(h1.get("idempotent-replayed").is_none());
        assert_eq!(h2["idempotent-replayed"], "true");
        let (status, err, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org, "last_name": "Other"}), Some("key-1")).await;
        assert_eq!(status, 409);
        assert_eq!(err["error"]["code"], "conflict");
        let (_, list) = w.get("/supporters", &token).await;
        assert_eq!(list.as_array().unwrap().len(), 1, "one supporter, not two");
        // Keys belong to their client: another client's key-1 is its own.
        let other = w.token(org).await;
        let (status, third, _) = w.post("/supporters", &other, &body, Some("key-1")).await;
        assert_eq!(status, 201);
        assert_ne!(third["uuid"], first["uuid"]);
    }

    async fn supporters_are_searched_like_payments(backend) {
        let w = world(backend).await;
        let (org, _, token) = merchant(&w).await;
        let mut made = Vec::new();
        for (first, city, campaign) in [("Ada", "Zurich", "winter"), ("Grace", "Bern", "winter"), ("Alan", "Zurich", "summer")] {
            let (status, s, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org, "first_name": first, "city": city,
                "custom_parameters": {"campaign": campaign}}), None).await;
            assert_eq!(status, 201, "{s}");
            made.push(s);
        }
        let (other_org, _, other_token) = merchant(&w).await;
        w.post("/supporters", &other_token, &json!({"organisation_uuid": other_org, "first_name": "Eve", "city": "Zurich"}), None).await;

        let (status, found, _) = w.post("/search/supporters", &token, &json!({
            "query": {"$and": [{"$term": {"city": "Zurich"}}, {"$match": {"custom_parameters.campaign": "winter"}}]},
        }), None).await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["summary"]["hits"], 1);
        assert_eq!(found["hits"][0], made[0]);
        let (_, cities, _) = w.post("/search/supporters", &token, &json!({"query": {"$match": {}}, "size": 0,
            "aggs": {"cities": {"type": "term", "field": "city"}}}), None).await;
        assert_eq!(cities["summary"]["hits"], 3, "another organisation's supporter never counts");
        assert_eq!(cities["aggregations"]["cities"], json!([{"key": "Zurich", "doc_count": 2}, {"key": "Bern", "doc_count": 1}]));
    }

    async fn birth_date_parts_are_days_months_and_years_wherever_a_supporter_is_written(backend) {
        let w = world(backend).await;
        let (org, account, token) = merchant(&w).await;
        let named = |err: &Value| -> Vec<String> {
            err["error"]["message"].as_array().unwrap().iter()
                .map(|i| i["property"].as_str().unwrap().to_owned()).collect()
        };
        // `7` and `07` are the same day, kept as written; the bounds themselves are parts.
        for (day, month, year) in [("7", "07", "1990"), ("01", "1", "1900"), ("31", "12", "2026")] {
            let (status, made, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org,
                "birth_day": day, "birth_month": month, "birth_year": year}), None).await;
            assert_eq!(status, 201, "{made}");
            assert_eq!((&made["birth_day"], &made["birth_month"], &made["birth_year"]), (&json!(day), &json!(month), &json!(year)));
        }
        // Every offending part named, in shape A.
        let (status, err, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org,
            "birth_day": "32", "birth_month": "13", "birth_year": "nineteen"}), None).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["error"]["http_code"], 400);
        assert_eq!(named(&err), ["birth_day", "birth_month", "birth_year"], "{err}");
        assert_eq!(err["error"]["message"][0]["code"], "error.validation.not_valid");
        // The clock stands at 2026-01-01: 2027 is still to come.
        let refused = [
            ("birth_day", json!("0")), ("birth_day", json!("007")), ("birth_day", json!(" 7")),
            ("birth_day", json!("+7")), ("birth_day", json!("7.0")), ("birth_day", json!("\u{0667}")),
            ("birth_day", json!(7)), ("birth_month", json!("00")), ("birth_month", json!("-1")),
            ("birth_year", json!("2027")), ("birth_year", json!("1899")), ("birth_year", json!("90")),
            ("birth_year", json!("01990")), ("birth_year", json!(1990)),
        ];
        for (property, value) in &refused {
            let mut body = json!({"organisation_uuid": org});
            body[*property] = value.clone();
            let (status, err, _) = w.post("/supporters", &token, &body, None).await;
            assert_eq!(status, 400, "{property}: {value}: {err}");
            assert_eq!(named(&err), [*property], "{property}: {value}: {err}");
        }

        // Updated: a part sent is checked, one left out is kept, one sent as null cleared.
        let (_, ada, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org,
            "birth_day": "10", "birth_month": "12", "birth_year": "1915"}), None).await;
        let path = format!("/supporters/{}", ada["uuid"].as_str().unwrap());
        let (status, err) = w.patch(&path, &token, &json!({"birth_day": "31", "birth_month": "13"})).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(named(&err), ["birth_month"], "{err}");
        let (status, updated) = w.patch(&path, &token, &json!({"birth_month": "2", "birth_year": null})).await;
        assert_eq!(status, 200, "{updated}");
        assert_eq!((&updated["birth_day"], &updated["birth_month"]), (&json!("10"), &json!("2")));
        assert!(updated.get("birth_year").is_none(), "{updated}");

        // Created with a payment: the same parts, named under `supporter`.
        let mut payment = json!({"account_uuid": account, "payment_method": "sepa_dd",
            "amount": {"value": "4200", "currency": "EUR"},
            "payment_information": {"iban": "DE89 3704 0044 0532 0130 00", "account_holder": "Ada Lovelace"},
            "create_supporter": true,
            "supporter": {"first_name": "Ada", "birth_day": "32", "birth_month": "07", "birth_year": "3000"}});
        let (status, err, _) = w.post("/payments", &token, &payment, None).await;
        assert_eq!(status, 400, "{err}");
        let properties: Vec<&str> = err["errors"].as_array().unwrap().iter()
            .map(|i| i["property"].as_str().unwrap()).collect();
        assert_eq!(properties, ["supporter.birth_day", "supporter.birth_year"], "{err}");
        payment["supporter"]["birth_day"] = json!("7");
        payment["supporter"]["birth_year"] = json!("1985");
        let (status, paid, _) = w.post("/payments", &token, &payment, None).await;
        assert_eq!(status, 201, "{paid}");
        let (_, donor) = w.get(&format!("/supporters/{}", paid["supporter_uuid"].as_str().unwrap()), &token).await;
        assert_eq!((&donor["birth_day"], &donor["birth_month"], &donor["birth_year"]), (&json!("7"), &json!("07"), &json!("1985")));

        // A row stored before these parts were checked reads back as it is: got, listed and
        // searched; an update that leaves its parts out, or sends them back unchanged, keeps
        // them, and only a new value is checked.
        use coffer_payments::shared::supporter::Supporter;
        use coffer_payments::shared::supporter_store as store;
        let old = Supporter {
            uuid: uuid::Uuid::new_v4().to_string(),
            organisation_uuid: org.to_string(),
            created: coffer_testkit::START_UNIX,
            last_name: Some("Before".into()),
            birth_day: Some("32".into()),
            birth_month: Some("13".into()),
            birth_year: Some("nineteen".into()),
            service_parameters: json!({}),
            ..Supporter::default()
        };
        let row = old.clone();
        w.payments.write(move |tx| store::insert(tx, &row).map_err(coffer_store::StoreError::from)).await.unwrap();
        let path = format!("/supporters/{}", old.uuid);
        let (status, got) = w.get(&path, &token).await;
        assert_eq!(status, 200, "{got}");
        assert_eq!((&got["birth_day"], &got["birth_month"], &got["birth_year"]), (&json!("32"), &json!("13"), &json!("nineteen")));
        let (status, list) = w.get(&format!("/supporters?organisation_uuid={org}&sort_by=birth_year"), &token).await;
        assert_eq!(status, 200, "{list}");
        assert!(list.as_array().unwrap().contains(&got), "{list}");
        let (status, updated) = w.patch(&path, &token, &json!({"city": "Basel", "birth_day": "32"})).await;
        assert_eq!(status, 200, "{updated}");
        assert_eq!((&updated["birth_day"], &updated["birth_month"], &updated["birth_year"]), (&json!("32"), &json!("13"), &json!("nineteen")));
        let (status, err) = w.patch(&path, &token, &json!({"birth_day": "33", "birth_year": "nineteen"})).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(named(&err), ["birth_day"], "{err}");

        // Searched by those parts, as written.
        for (field, value, hits) in [("birth_year", "nineteen", 1), ("birth_month", "07", 2), ("birth_day", "7", 2)] {
            let (status, found, _) = w.post("/search/supporters", &token,
                &json!({"query": {"$term": {field: value}}}), None).await;
            assert_eq!(status, 200, "{found}");
            assert_eq!(found["summary"]["hits"], hits, "{field} {value}: {found}");
        }
    }
}
