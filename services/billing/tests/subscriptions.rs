//! Subscriptions through HTTP: what create checks, the long form of intervals, every state
//! transition and its 409, updates, events and tenants.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

const GLOBAL: &str = "00000000-0000-4000-8000-000000000001";

fn subscription(account: &str, source: &str, supporter: &str) -> Value {
    json!({"account_uuid": account, "payment_source_uuid": source, "supporter_uuid": supporter,
        "test_mode": true, "currency": "CHF", "amount": 1500, "recurring_interval": "monthly",
        "timezone": "Europe/Zurich", "planned_effective_from": "2026-01-31",
        "custom_parameters": {"campaign": "winter"}})
}

async fn post(w: &World, path: &str, token: &str, body: &Value) -> (u16, Value) {
    let (status, answer, _) = w.post(path, token, body, None).await;
    (status, answer)
}

coffer_testkit::backend_tests! {
    async fn create_checks_every_reference_and_shows_the_long_interval(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let mut events = subscribe(&w, "subscriptions").await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;

        let (status, created) = post(&w, "/subscriptions", &token, &subscription(&account, &source, &supporter)).await;
        assert_eq!(status, 201, "{created}");
        assert_eq!(created["subscription_status"], "pending");
        assert_eq!(created["recurring_interval"], "0 0 31 * *");
        assert_eq!(created["subscription_plan"], json!({"uuid": GLOBAL, "name": "Default"}));
        assert_eq!(created["payment_method"], "card");
        assert_eq!(created["payment_provider"], "coffer_test");
        assert_eq!(created["amount"], 1500);
        assert_eq!(created["currency"], "CHF");
        assert_eq!(created["timezone"], "Europe/Zurich");
        assert_eq!(created["planned_effective_from"], 1_769_814_000, "2026-01-31T00:00+01:00");
        assert_eq!(created["next_due_date"], Value::Null, "nothing is due while pending");
        assert_eq!(created["consecutive_failed_invoices"], 0);
        let path = format!("/subscriptions/{}", created["uuid"].as_str().unwrap());
        assert_eq!(w.get(&path, &token).await.1, created);
        let announced = next_named(&mut events, "coffer.event.subscriptions.subscription.created").await;
        assert_eq!(announced.data, created);

        // Active at once: the first charge date from the anchor, at local midnight.
        let mut active = subscription(&account, &source, &supporter);
        active["status"] = json!("active");
        active["recurring_interval"] = json!("quarterly");
        active["planned_effective_from"] = json!("2026-02-15");
        active["timezone"] = json!("Mars/Olympus");
        let (status, active) = post(&w, "/subscriptions", &token, &active).await;
        assert_eq!(status, 201, "{active}");
        assert_eq!(active["subscription_status"], "active");
        assert_eq!(active["recurring_interval"], "0 0 15 2/3 *");
        assert_eq!(active["timezone"], "UTC", "an unknown zone falls back to UTC");
        assert_eq!(active["next_due_date"], 1_771_113_600, "2026-02-15T00:00Z");

        // The organisation's default plan is taken when none is named.
        let (_, plan, _) = w.post("/subscription-plans", &token, &json!({"organisation_uuid": org, "name": "Ours", "is_default": true}), None).await;
        let (_, planned) = post(&w, "/subscriptions", &token, &subscription(&account, &source, &supporter)).await;
        assert_eq!(planned["subscription_plan"], json!({"uuid": plan["uuid"], "name": "Ours"}));

        let unknown = uuid::Uuid::new_v4().to_string();
        let (failed_source, _) = donor(&w, &token, org, &account, "4000000000000002").await;
        for (change, status, property) in [
            (json!({"payment_source_uuid": unknown}), 404, None),
            (json!({"supporter_uuid": unknown}), 404, None),
            (json!({"subscription_plan_uuid": unknown}), 404, None),
            (json!({"account_uuid": unknown}), 404, None),
            (json!({"test_mode": false}), 400, Some("test_mode")),
            (json!({"payment_source_uuid": failed_source}), 400, Some("payment_source_uuid")),
            (json!({"amount": 0}), 400, Some("amount")),
            (json!({"currency": "ABC"}), 400, Some("currency")),
            (json!({"recurring_interval": "30 2 *"}), 400, Some("recurring_interval")),
            (json!({"status": "suspended"}), 400, Some("status")),
            (json!({"planned_end": "2026-01-01"}), 400, Some("planned_end")),
        ] {
            let mut body = subscription(&account, &source, &supporter);
            for (k, v) in change.as_object().unwrap() {
                body[k] = v.clone();
            }
            let (got, err) = post(&w, "/subscriptions", &token, &body).await;
            assert_eq!(got, status, "{change}: {err}");
            if let Some(property) = property {
                assert_eq!(err["error"]["message"][0]["property"], property, "shape A: {err}");
                if property == "status" {
                    assert_eq!(err["error"]["message"][0]["code"], "the_value_you_selected_is_not_a_valid_choice");
                }
            }
        }
        let (status, err) = post(&w, "/subscriptions", &token, &json!({})).await;
        assert_eq!(status, 400);
        let missing: Vec<&str> = err["error"]["message"].as_array().unwrap().iter().map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(missing, ["account_uuid", "payment_source_uuid", "supporter_uuid", "currency", "amount", "recurring_interval"]);
    }

    async fn changes_at_the_same_moment_are_all_kept(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let mut paths = Vec::new();
        for _ in 0..10 {
            let mut body = subscription(&account, &source, &supporter);
            body["status"] = json!("active");
            let (status, s) = post(&w, "/subscriptions", &token, &body).await;
            assert_eq!(status, 201, "{s}");
            paths.push(format!("/subscriptions/{}", s["uuid"].as_str().unwrap()));
        }
        // Each subscription is suspended and given a new amount at once: both answers are
        // 200 and neither change undoes the other.
        let races = paths.iter().enumerate().map(|(i, path)| {
            let (w, token) = (&w, token.clone());
            async move {
                let suspend = format!("{path}/suspend");
                let amount = 2000 + i64::try_from(i).unwrap();
                let (nothing, new_amount) = (json!({}), json!({"amount": amount}));
                let (suspended, patched) = tokio::join!(
                    post(w, &suspend, &token, &nothing),
                    w.patch(path, &token, &new_amount),
                );
                assert_eq!(suspended.0, 200, "{}", suspended.1);
                assert_eq!(patched.0, 200, "{}", patched.1);
                let now = w.get(path, &token).await.1;
                assert_eq!(now["subscription_status"], "suspended", "{now}");
                assert_eq!(now["amount"], amount, "{now}");
            }
        });
        futures_util::future::join_all(races).await;
    }

    async fn every_transition_and_its_conflicts(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let (_, created) = post(&w, "/subscriptions", &token, &subscription(&account, &source, &supporter)).await;
        let path = format!("/subscriptions/{}", created["uuid"].as_str().unwrap());
        let act = |action: &str, body: Value| {
            let (w, token, path) = (&w, token.clone(), format!("{path}/{action}"));
            async move { post(w, &path, &token, &body).await }
        };

        let (status, err) = act("suspend", json!({})).await;
        assert_eq!(status, 409, "a pending subscription cannot be suspended");
        assert!(err["message"].is_string(), "shape C: {err}");
        let (status, active) = act("activate", json!({})).await;
        assert_eq!(status, 200, "{active}");
        assert_eq!(active["subscription_status"], "active");
        assert_eq!(active["next_due_date"], 1_769_814_000, "the anchor, 31 January");
        assert_eq!(act("activate", json!({})).await.0, 409);

        // Today is 2026-01-01 in Zurich (the test clock).
        let (status, err) = act("suspend", json!({"suspension_start": "2025-12-31"})).await;
        assert_eq!(status, 400, "not before today: {err}");
        let (status, err) = act("suspend", json!({"suspension_start": 20260105})).await;
        assert_eq!(status, 400, "a date sent as a number is refused, not ignored: {err}");
        assert!(err["message"].as_str().unwrap().contains("suspension_start"), "{err}");
        let (status, suspended) = act("suspend", json!({"suspension_end": "2026-03-01"})).await;
        assert_eq!(status, 200, "{suspended}");
        assert_eq!(suspended["subscription_status"], "suspended");
        assert_eq!(suspended["suspension_start"], 1_767_222_000, "today, 2026-01-01T00:00+01:00");
        assert_eq!(act("suspend", json!({"suspension_start": "2026-01-05"})).await.0, 409, "in effect: its start stays");
        let (status, longer) = act("suspend", json!({"suspension_start": "2026-01-01", "suspension_end": "2026-04-01"})).await;
        assert_eq!(status, 200, "the end of a suspension in effect can change: {longer}");
        assert_eq!(act("suspend", json!({"suspension_end": "2025-06-01"})).await.0, 400);
        let (status, resumed) = act("activate", json!({})).await;
        assert_eq!(status, 200);
        assert_eq!(resumed["suspension_start"], Value::Null);

        // A suspension planned for later is not in effect yet: its start may move.
        assert_eq!(act("suspend", json!({"suspension_start": "2026-02-10"})).await.0, 200);
        assert_eq!(act("suspend", json!({"suspension_start": "2026-02-20"})).await.0, 200);

        let (status, cancelled) = act("cancel", json!({})).await;
        assert_eq!(status, 200);
        assert_eq!(cancelled["subscription_status"], "cancelled");
        assert_eq!(cancelled["next_due_date"], Value::Null);
        for action in ["cancel", "activate", "suspend"] {
            assert_eq!(act(action, json!({})).await.0, 409, "{action} after cancel");
        }
        assert_eq!(w.patch(&path, &token, &json!({"amount": 100})).await.0, 409);
    }

    async fn updates_change_terms_but_not_what_is_fixed(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let mut body = subscription(&account, &source, &supporter);
        body["status"] = json!("active");
        let (_, created) = post(&w, "/subscriptions", &token, &body).await;
        let path = format!("/subscriptions/{}", created["uuid"].as_str().unwrap());

        let (status, err) = w.patch(&path, &token, &json!({"status": "cancelled", "account_uuid": account})).await;
        assert_eq!(status, 400);
        assert_eq!(err["error"]["message"][0]["property"], "status", "{err}");
        assert_eq!(err["error"]["message"][1]["property"], "account_uuid");
        let (_, other_supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        assert_eq!(w.patch(&path, &token, &json!({"supporter_uuid": other_supporter})).await.0, 409, "set once");
        assert_eq!(w.patch(&path, &token, &json!({"planned_end": "2025-01-01"})).await.0, 400);

        let (status, changed) = w.patch(&path, &token, &json!({"amount": 2500, "recurring_interval": "L * *",
            "custom_parameters": {"campaign": "spring"}})).await;
        assert_eq!(status, 200, "{changed}");
        assert_eq!(changed["amount"], 2500);
        assert_eq!(changed["recurring_interval"], "0 0 L * *");
        assert_eq!(changed["custom_parameters"], json!({"campaign": "spring"}));
        assert_eq!(changed["next_due_date"], 1_769_814_000, "the last day of January, in Zurich");
        assert_eq!(w.get(&path, &token).await.1, changed);
    }

    async fn other_organisations_are_refused_everywhere(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let (_, created) = post(&w, "/subscriptions", &token, &subscription(&account, &source, &supporter)).await;
        let path = format!("/subscriptions/{}", created["uuid"].as_str().unwrap());
        let other = w.token(w.organisation("Other").await).await;
        assert_eq!(post(&w, "/subscriptions", &other, &subscription(&account, &source, &supporter)).await.0, 403);
        assert_eq!(w.get(&path, &other).await.0, 403);
        assert_eq!(w.patch(&path, &other, &json!({"amount": 1})).await.0, 403);
        for action in ["activate", "cancel", "suspend"] {
            assert_eq!(post(&w, &format!("{path}/{action}"), &other, &json!({})).await.0, 403, "{action}");
        }
        assert_eq!(w.get(&path, &token).await.1["subscription_status"], "pending");
        assert_eq!(w.get(&format!("/subscriptions/{}", uuid::Uuid::new_v4()), &token).await.0, 404);
    }

    async fn a_payment_with_subscription_terms_starts_a_subscription_when_it_succeeds(backend) {
        let w = billing_world(backend).await;
        let (_, account, token) = billing_merchant(&w).await;
        let mut events = subscribe(&w, "subscriptions").await;
        for (number, approve) in [("4242424242424242", false), ("4000000000003220", true)] {
            let body = json!({"account_uuid": account, "payment_method": "card", "amount": {"value": "3000", "currency": "CHF"},
                "payment_information": {"number": number, "expiry_month": 12, "expiry_year": 2030, "cvv": "123"},
                "create_payment_source": true, "create_supporter": true, "return_url": "https://charity.example/thanks",
                "supporter": {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org"},
                "subscription": {"recurring_interval": "monthly", "timezone": "Europe/Zurich", "custom_parameters": {"origin": "first gift"}}});
            let (status, paid, _) = w.post("/payments", &token, &body, None).await;
            assert_eq!(status, 201, "{paid}");
            if approve {
                press(&w, &paid, "approve").await;
            }
            let born = next_named(&mut events, "coffer.event.subscriptions.subscription.created").await;
            assert_eq!(born.data["payment_source_uuid"], paid["created_payment_source_uuid"]);
            let path = format!("/subscriptions/{}", born.object_uuid);
            let (status, s) = w.get(&path, &token).await;
            assert_eq!(status, 200, "{s}");
            assert_eq!(s["subscription_status"], "active");
            assert_eq!(s["amount"], 3000);
            assert_eq!(s["supporter_uuid"], paid["supporter_uuid"]);
            assert_eq!(s["recurring_interval"], "0 0 1 * *", "anchored at the payment's day in Zurich");
            assert_eq!(s["next_due_date"], 1_769_900_400, "1 February, local midnight");
            assert_eq!(s["custom_parameters"], json!({"origin": "first gift"}));
            let (_, invoices) = w.get(&format!("{path}/invoices"), &token).await;
            assert_eq!(invoices.as_array().unwrap().len(), 1, "{invoices}");
            assert_eq!(invoices[0]["status"], "paid", "the first period is the payment's");
            assert_eq!(invoices[0]["charge_attempts"][0]["status"], "succeeded");
            // The payment names the subscription it started, once payments has heard of it.
            let payment = format!("/payments/{}", paid["uuid"].as_str().unwrap());
            let mut named = Value::Null;
            for _ in 0..400 {
                named = w.get(&payment, &token).await.1["subscription_uuid"].clone();
                if !named.is_null() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            }
            assert_eq!(named, json!(born.object_uuid.to_string()));
        }
    }

    async fn a_payment_names_its_plan_as_spec_md_does(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let mut events = subscribe(&w, "subscriptions").await;
        let (status, plan, _) = w.post("/subscription-plans", &token, &json!({"organisation_uuid": org, "name": "Monthly friends"}), None).await;
        assert_eq!(status, 201, "{plan}");
        let (other_org, _, _) = w.merchant().await;
        let foreign = w.token(other_org).await;
        let (_, foreign_plan, _) = w.post("/subscription-plans", &foreign, &json!({"organisation_uuid": other_org, "name": "Theirs"}), None).await;
        for (named, expected) in [(&plan["uuid"], &plan["uuid"]), (&foreign_plan["uuid"], &json!(coffer_billing::plans::domain::GLOBAL_UUID))] {
            let body = json!({"account_uuid": account, "payment_method": "card", "amount": {"value": "3000", "currency": "CHF"},
                "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"},
                "create_payment_source": true, "create_supporter": true,
                "supporter": {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org"},
                "subscription": {"recurring_interval": "monthly", "plan_uuid": named}});
            let (status, paid, _) = w.post("/payments", &token, &body, None).await;
            assert_eq!(status, 201, "{paid}");
            let born = next_named(&mut events, "coffer.event.subscriptions.subscription.created").await;
            let (_, s) = w.get(&format!("/subscriptions/{}", born.object_uuid), &token).await;
            assert_eq!(&s["subscription_plan"]["uuid"], expected, "{s}");
        }
    }

    async fn subscriptions_are_searched_as_raisenow_documents(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let body = |status: &str, campaign: &str, amount: i64| json!({"account_uuid": account, "payment_source_uuid": source,
            "supporter_uuid": supporter, "test_mode": true, "currency": "CHF", "amount": amount, "recurring_interval": "monthly",
            "status": status, "custom_parameters": {"campaign": campaign}});
        let mut made = Vec::new();
        for (status, campaign, amount) in [("active", "winter", 1000), ("active", "summer", 2000), ("pending", "winter", 3000)] {
            let (code, s, _) = w.post("/subscriptions", &token, &body(status, campaign, amount), None).await;
            assert_eq!(code, 201, "{s}");
            made.push(s);
        }
        // Another organisation's subscription never shows.
        let (other_org, other_account, other_token) = billing_merchant(&w).await;
        let (other_source, other_supporter) = donor(&w, &other_token, other_org, &other_account, "4242424242424242").await;
        let (code, _, _) = w.post("/subscriptions", &other_token, &json!({"account_uuid": other_account, "payment_source_uuid": other_source,
            "supporter_uuid": other_supporter, "test_mode": true, "currency": "CHF", "amount": 500, "recurring_interval": "monthly",
            "status": "active", "custom_parameters": {"campaign": "winter"}}), None).await;
        assert_eq!(code, 201);

        let (status, found, _) = w.post("/search/subscriptions", &token, &json!({
            "query": {"$and": [{"$term": {"status": "active"}}, {"$term": {"organisation_uuid": org}}, {"$term": {"custom_parameters.campaign": "winter"}}]},
            "includes": [],
        }), None).await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["summary"]["hits"], 1, "{found}");
        let (_, mut current) = w.get(&format!("/subscriptions/{}", made[0]["uuid"].as_str().unwrap()), &token).await;
        let mut hit = found["hits"][0].clone();
        // The scheduler may invoice it between the two reads; the rest stands still.
        for s in [&mut hit, &mut current] {
            s.as_object_mut().unwrap().remove("next_due_date");
        }
        assert_eq!(hit, current, "a hit is the subscription as Get Subscription answers it");

        let (_, all, _) = w.post("/search/subscriptions", &token, &json!({
            "query": {"$match": {}}, "size": 2, "sort": [{"field": "amount", "direction": "asc"}],
            "aggs": {"statuses": {"type": "term", "field": "subscription_status"}, "amounts": {"type": "stats", "field": "amount"}},
            "includes": ["uuid", "amount"],
        }), None).await;
        assert_eq!(all["summary"]["hits"], 3);
        assert_eq!(all["hits"], json!([{"uuid": made[0]["uuid"], "amount": 1000}, {"uuid": made[1]["uuid"], "amount": 2000}]));
        assert_eq!(all["aggregations"]["statuses"], json!([{"key": "active", "doc_count": 2}, {"key": "pending", "doc_count": 1}]));
        assert_eq!(all["aggregations"]["amounts"]["sum"], "6000");
        let (_, next, _) = w.post("/search/subscriptions", &token, &json!({
            "query": {"$match": {}}, "size": 2, "sort": [{"field": "amount", "direction": "asc"}],
            "search_after": all["summary"]["last_sort_values"], "includes": ["uuid"],
        }), None).await;
        assert_eq!(next["hits"], json!([{"uuid": made[2]["uuid"]}]));

        let (status, err, _) = w.post("/search/subscriptions", &token, &json!({"query": {"$term": {"password": "x"}}}), None).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "query.$term.password", "{err}");
    }
}
