//! Invoices, charge attempts and dunning through HTTP, with payments charging the sources
//! from billing's events and billing learning the results from payments' events.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

fn subscription(account: &str, source: &str, supporter: &str, status: &str) -> Value {
    json!({"account_uuid": account, "payment_source_uuid": source, "supporter_uuid": supporter,
        "test_mode": true, "currency": "CHF", "amount": 1500, "recurring_interval": "monthly",
        "status": status, "custom_parameters": {"campaign": "winter", "channel": "web"}})
}

/// The invoices path of a new pending subscription paid from `source`.
async fn invoices_of_new_subscription(
    w: &World,
    token: &str,
    account: &str,
    source: &str,
    supporter: &str,
) -> String {
    let (status, s, _) = w
        .post(
            "/subscriptions",
            token,
            &subscription(account, source, supporter, "pending"),
            None,
        )
        .await;
    assert_eq!(status, 201, "{s}");
    format!("/subscriptions/{}/invoices", s["uuid"].as_str().unwrap())
}

/// The path of a new manual invoice under `invoices`.
/// A world with an open invoice of a subscription paid by a card that succeeds: the world,
/// a token of its organisation and the invoice's path.
async fn an_open_invoice(backend: coffer_testkit::Backend) -> (World, String, String) {
    let w = billing_world(backend).await;
    let (org, account, token) = billing_merchant(&w).await;
    let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
    let invoices = invoices_of_new_subscription(&w, &token, &account, &source, &supporter).await;
    let path = new_invoice(&w, &token, &invoices).await;
    (w, token, path)
}

async fn new_invoice(w: &World, token: &str, invoices: &str) -> String {
    let (status, invoice, _) = w.post(invoices, token, &json!({}), None).await;
    assert_eq!(status, 201, "{invoice}");
    format!("{invoices}/{}", invoice["uuid"].as_str().unwrap())
}

/// Polls `path` until `done` holds, for up to ten seconds.
async fn until(w: &World, path: &str, token: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..400 {
        let (status, body) = w.get(path, token).await;
        if status == 200 && done(&body) {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{path} never got there: {}", w.get(path, token).await.1);
}

coffer_testkit::backend_tests! {
    async fn a_manual_invoice_is_charged_once_and_closes_as_asked(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let (_, s, _) = w.post("/subscriptions", &token, &subscription(&account, &source, &supporter, "pending"), None).await;
        let invoices = format!("/subscriptions/{}/invoices", s["uuid"].as_str().unwrap());

        let (status, invoice, _) = w.post(&invoices, &token, &json!({"custom_parameters": {"channel": "phone"}}), None).await;
        assert_eq!(status, 201, "{invoice}");
        assert_eq!(invoice["status"], "open");
        assert_eq!(invoice["status_reason"], "pending");
        assert_eq!(invoice["is_manually_created"], true);
        assert_eq!(invoice["amount"], 1500, "the subscription's amount");
        assert_eq!(invoice["custom_parameters"], json!({"campaign": "winter", "channel": "phone"}));
        let path = format!("{invoices}/{}", invoice["uuid"].as_str().unwrap());

        // A hundred concurrent attempts: exactly one is made.
        let requests: Vec<_> = (0..100)
            .map(|_| {
                let (http, url, token) = (w.app.http.clone(), w.app.url(&format!("{path}/charge-attempts")), token.clone());
                tokio::spawn(async move { http.post(url).bearer_auth(token).send().await.unwrap().status().as_u16() })
            })
            .collect();
        let mut statuses = Vec::new();
        for r in requests {
            statuses.push(r.await.unwrap());
        }
        assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
        assert!(statuses.iter().all(|s| *s == 201 || *s == 409), "{statuses:?}");

        let paid = until(&w, &path, &token, |i| i["status"] == "paid").await;
        assert_eq!(paid["status_reason"], "paid");
        assert_eq!(paid["charge_attempts"].as_array().unwrap().len(), 1);
        assert_eq!(paid["charge_attempts"][0]["status"], "succeeded");
        assert_eq!(w.post(&format!("{path}/charge-attempts"), &token, &json!({}), None).await.0, 409, "paid already");

        let (status, err, _) = w.post(&format!("{path}/close"), &token, &json!({"status": "refunded"}), None).await;
        assert_eq!(status, 400);
        assert_eq!(err["error"]["message"][0]["code"], "the_value_you_selected_is_not_a_valid_choice", "{err}");
        assert_eq!(w.post(&format!("{path}/close"), &token, &json!({"status": "cancelled"}), None).await.0, 400, "only an open invoice closes");

        // Closed by hand: no charge, and nothing more happens to it.
        let (_, second, _) = w.post(&invoices, &token, &json!({"amount": 700}), None).await;
        let second_path = format!("{invoices}/{}", second["uuid"].as_str().unwrap());
        let (status, closed, _) = w.post(&format!("{second_path}/close"), &token, &json!({"status": "cancelled"}), None).await;
        assert_eq!(status, 200, "{closed}");
        assert_eq!(closed["status"], "cancelled");
        assert_eq!(closed["charge_attempts"], json!([]));
        // A body that is there but is no object is refused, and makes no invoice.
        for body in [json!([700]), json!("700"), json!(700)] {
            let (status, err, _) = w.post(&invoices, &token, &body, None).await;
            assert_eq!(status, 400, "{body}: {err}");
            assert_eq!(err["error"]["message"][0]["message"], "The request body must be a JSON object", "{err}");
        }
        let (_, all) = w.get(&invoices, &token).await;
        assert_eq!(all.as_array().unwrap().len(), 2);

        let other = w.token(w.organisation("Other").await).await;
        assert_eq!(w.get(&invoices, &other).await.0, 403);
        assert_eq!(w.get(&path, &other).await.0, 403);
        assert_eq!(w.post(&invoices, &other, &json!({}), None).await.0, 403);
        assert_eq!(w.post(&format!("{second_path}/close"), &other, &json!({"status": "paid"}), None).await.0, 403);
        assert_eq!(w.post(&format!("{path}/charge-attempts"), &other, &json!({}), None).await.0, 403);
    }

    async fn invoices_and_charge_attempts_honour_the_idempotency_key(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        // 0341 is stored but its charges fail, so the invoice stays open for a second try.
        let (source, supporter) = donor(&w, &token, org, &account, "4000000000000341").await;
        let (_, s, _) = w.post("/subscriptions", &token, &subscription(&account, &source, &supporter, "pending"), None).await;
        let invoices = format!("/subscriptions/{}/invoices", s["uuid"].as_str().unwrap());
        let body = json!({"amount": 700});
        let (status, first, _) = w.post(&invoices, &token, &body, Some("invoice-1")).await;
        assert_eq!(status, 201, "{first}");
        let (status, again, headers) = w.post(&invoices, &token, &body, Some("invoice-1")).await;
        assert_eq!((status, &again), (201, &first));
        assert_eq!(headers["idempotent-replayed"], "true");
        assert_eq!(w.post(&invoices, &token, &json!({"amount": 800}), Some("invoice-1")).await.0, 409, "another body");
        assert_eq!(w.get(&invoices, &token).await.1.as_array().unwrap().len(), 1);

        let attempts = format!("{invoices}/{}/charge-attempts", first["uuid"].as_str().unwrap());
        let (status, attempt, _) = w.post(&attempts, &token, &json!({}), Some("attempt-1")).await;
        assert_eq!(status, 201, "{attempt}");
        let invoice = format!("{invoices}/{}", first["uuid"].as_str().unwrap());
        until(&w, &invoice, &token, |i| i["failed_payment_attempts"] == 1).await;
        // The retry of the same request answers as the first did instead of charging again.
        let (status, replayed, _) = w.post(&attempts, &token, &json!({}), Some("attempt-1")).await;
        assert_eq!((status, replayed["uuid"].clone()), (201, attempt["uuid"].clone()));
        let (_, fetched) = w.get(&invoice, &token).await;
        assert_eq!(fetched["charge_attempts"].as_array().unwrap().len(), 1, "{fetched}");
    }

    async fn a_charge_attempt_whose_answer_is_lost_is_charged_once(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let invoices = invoices_of_new_subscription(&w, &token, &account, &source, &supporter).await;
        let path = new_invoice(&w, &token, &invoices).await;

        // The provider charges and never answers: payments records nothing more, and the
        // event that asked for the charge is not handled again.
        w.faults.set(Some(Fault::HangAfterCall));
        let (status, attempt, _) = w.post(&format!("{path}/charge-attempts"), &token, &json!({}), None).await;
        assert_eq!(status, 201, "{attempt}");
        tokio::time::sleep(CONNECTOR_TIMEOUT + Duration::from_secs(1)).await;
        assert_eq!(w.get(&path, &token).await.1["status"], "open");
        w.faults.set(None);
        // Asked later what it did, the provider says it charged: the invoice is paid.
        w.app.clock.advance(time::Duration::seconds(SETTLE_AFTER.as_secs() as i64 + 1));
        let paid = until(&w, &path, &token, |i| i["status"] == "paid").await;
        assert_eq!(paid["charge_attempts"].as_array().unwrap().len(), 1);
        let book = w.provider_book("charge").await;
        let of_attempt: Vec<_> = book.iter().filter(|e| e.requests == 1).collect();
        assert_eq!(of_attempt.len(), book.len(), "no key asked twice");
        let (_, found, _) = w.post("/search/payments", &token, &json!({"query": {"$exists": "uuid"}, "size": 0,
            "aggs": {"attempts": {"type": "term", "field": "subscription_uuid"}}}), None).await;
        assert_eq!(found["aggregations"]["attempts"][0]["doc_count"], 1, "one payment for the attempt: {found}");
    }

    async fn an_invoice_is_not_closed_while_its_charge_attempt_may_still_charge(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let invoices = invoices_of_new_subscription(&w, &token, &account, &source, &supporter).await;
        let path = new_invoice(&w, &token, &invoices).await;

        // The provider takes the money and its answer never comes: the attempt stays
        // pending, and so it may still charge. Neither closing is accepted meanwhile.
        w.faults.set(Some(Fault::HangAfterCall));
        let (status, attempt, _) = w.post(&format!("{path}/charge-attempts"), &token, &json!({}), None).await;
        assert_eq!(status, 201, "{attempt}");
        for closing in ["cancelled", "paid"] {
            let (status, err, _) = w.post(&format!("{path}/close"), &token, &json!({"status": closing}), None).await;
            assert_eq!(status, 400, "closed as {closing} while the attempt is pending: {err}");
            assert_eq!(err["error"]["message"][0]["property"], "status", "{err}");
            assert!(err["error"]["message"][0]["message"].as_str().unwrap().contains("pending"), "{err}");
        }
        tokio::time::sleep(CONNECTOR_TIMEOUT + Duration::from_secs(1)).await;
        let (status, err, _) = w.post(&format!("{path}/close"), &token, &json!({"status": "cancelled"}), None).await;
        assert_eq!(status, 400, "the provider's answer is still unknown: {err}");
        let (_, open) = w.get(&path, &token).await;
        assert_eq!(open["status"], "open", "{open}");
        assert_eq!(open["charge_attempts"][0]["status"], "pending", "{open}");

        // Asked later, the provider says it charged: the invoice is paid, never cancelled
        // beside a payment, and it stays paid.
        w.faults.set(None);
        w.app.clock.advance(time::Duration::seconds(SETTLE_AFTER.as_secs() as i64 + 1));
        let paid = until(&w, &path, &token, |i| i["status"] == "paid").await;
        assert_eq!(paid["status_reason"], "paid");
        assert_eq!(paid["charge_attempts"][0]["status"], "succeeded");
        let (status, err, _) = w.post(&format!("{path}/close"), &token, &json!({"status": "cancelled"}), None).await;
        assert_eq!(status, 400, "{err}");
        assert!(err["error"]["message"][0]["message"].as_str().unwrap().contains("paid already"), "{err}");

        // An attempt that failed takes nothing: its invoice closes.
        let (failing, _) = donor(&w, &token, org, &account, "4000000000000341").await;
        let invoices = invoices_of_new_subscription(&w, &token, &account, &failing, &supporter).await;
        let path = new_invoice(&w, &token, &invoices).await;
        assert_eq!(w.post(&format!("{path}/charge-attempts"), &token, &json!({}), None).await.0, 201);
        until(&w, &path, &token, |i| i["charge_attempts"][0]["status"] == "failed").await;
        let (status, closed, _) = w.post(&format!("{path}/close"), &token, &json!({"status": "cancelled"}), None).await;
        assert_eq!(status, 200, "{closed}");
        assert_eq!(closed["status"], "cancelled");
    }

    async fn a_cancelled_subscription_takes_no_further_invoices_or_charge_attempts(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        // Monthly from today, paid by a card that is stored but whose charges fail: its
        // first invoice stays open, with a retry in two days.
        let (source, supporter) = donor(&w, &token, org, &account, "4000000000000341").await;
        let (_, s, _) = w.post("/subscriptions", &token, &subscription(&account, &source, &supporter, "active"), None).await;
        let path = format!("/subscriptions/{}", s["uuid"].as_str().unwrap());
        let invoices = format!("{path}/invoices");
        let first = until(&w, &invoices, &token, |l| l[0]["failed_payment_attempts"] == 1).await[0].clone();
        assert_eq!(first["status"], "open", "{first}");
        let first = format!("{invoices}/{}", first["uuid"].as_str().unwrap());
        let (status, cancelled, _) = w.post(&format!("{path}/cancel"), &token, &json!({}), None).await;
        assert_eq!(status, 200, "{cancelled}");

        // SPEC.md: no further invoices or charge attempts, by hand or by dunning.
        let (status, err, _) = w.post(&invoices, &token, &json!({}), None).await;
        assert_eq!(status, 409, "{err}");
        assert!(err.to_string().contains("cancelled"), "{err}");
        let (status, err, _) = w.post(&format!("{first}/charge-attempts"), &token, &json!({}), None).await;
        assert_eq!(status, 409, "{err}");
        w.app.clock.set_unix(coffer_testkit::START_UNIX + 10 * 86_400);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let token = w.token(org).await;
        let (_, still) = w.get(&first, &token).await;
        assert_eq!(still["charge_attempts"].as_array().unwrap().len(), 1, "no retry: {still}");
        assert_eq!(still["status"], "open", "the charity closes it: {still}");
        assert_eq!(still["next_attempt_date"], Value::Null, "{still}");
        let (status, closed, _) = w.post(&format!("{first}/close"), &token, &json!({"status": "cancelled"}), None).await;
        assert_eq!(status, 200, "{closed}");
        assert_eq!(w.get(&invoices, &token).await.1.as_array().unwrap().len(), 1);

        // A close without a status names it as missing.
        let (status, err, _) = w.post(&format!("{first}/close"), &token, &json!({}), None).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["error"]["message"][0]["property"], "status", "{err}");
        assert_eq!(err["error"]["message"][0]["code"], "error.validation.not_null", "{err}");
    }

    async fn a_retried_charge_attempt_is_answered_as_it_was_once_its_invoice_is_paid(backend) {
        let (w, token, path) = an_open_invoice(backend).await;
        let attempts = format!("{path}/charge-attempts");
        let (status, attempt, _) = w.post(&attempts, &token, &json!({}), Some("attempt-once")).await;
        assert_eq!(status, 201, "{attempt}");
        until(&w, &path, &token, |i| i["status"] == "paid").await;
        // The answer was lost; the client sends the same request again.
        let (status, again, headers) = w.post(&attempts, &token, &json!({}), Some("attempt-once")).await;
        assert_eq!(status, 201, "{again}");
        assert_eq!(headers["idempotent-replayed"], "true");
        assert_eq!(again, attempt);
        assert_eq!(w.post(&attempts, &token, &json!({}), Some("attempt-twice")).await.0, 409, "paid: no other attempt");
    }

    async fn a_charge_attempt_with_a_body_that_is_no_object_is_refused_and_charges_nothing(backend) {
        let (w, token, path) = an_open_invoice(backend).await;
        let attempts = format!("{path}/charge-attempts");
        for body in [json!([]), json!("x"), json!(1)] {
            let (status, err, _) = w.post(&attempts, &token, &body, None).await;
            assert_eq!(status, 400, "{body}: {err}");
        }
        let (_, invoice) = w.get(&path, &token).await;
        assert_eq!(invoice["charge_attempts"], json!([]), "nothing charged: {invoice}");
        let (status, attempt, _) = w.post(&attempts, &token, &json!({}), None).await;
        assert_eq!(status, 201, "an object is taken: {attempt}");
    }

    async fn no_race_of_close_and_charge_attempts_takes_money_for_a_closed_invoice(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let invoices = invoices_of_new_subscription(&w, &token, &account, &source, &supporter).await;
        // Each invoice gets a charge attempt and a close at the same moment, many times
        // over; whichever wins, a closed invoice has no succeeded attempt.
        let mut paths = Vec::new();
        for _ in 0..12 {
            paths.push(new_invoice(&w, &token, &invoices).await);
        }
        let races: Vec<_> = paths
            .iter()
            .enumerate()
            .map(|(n, path)| {
                let (http, token) = (w.app.http.clone(), token.clone());
                let charge = w.app.url(&format!("{path}/charge-attempts"));
                let close = w.app.url(&format!("{path}/close"));
                let closing = if n % 2 == 0 { "cancelled" } else { "paid" };
                tokio::spawn(async move {
                    let attempt = http.post(charge).bearer_auth(&token).json(&json!({})).send();
                    let close = http.post(close).bearer_auth(&token).json(&json!({"status": closing})).send();
                    let (a, c) = tokio::join!(attempt, close);
                    (a.unwrap().status().as_u16(), c.unwrap().status().as_u16())
                })
            })
            .collect();
        for race in races {
            let (attempt, close) = race.await.unwrap();
            assert!(matches!((attempt, close), (201, 400) | (409, 200)), "attempt {attempt}, close {close}");
        }
        for path in &paths {
            let settled = until(&w, path, &token, |i| {
                i["charge_attempts"].as_array().unwrap().iter().all(|a| a["status"] != "pending")
            })
            .await;
            let attempts = settled["charge_attempts"].as_array().unwrap();
            if settled["status_reason"] == "manual" {
                assert!(attempts.is_empty(), "closed by hand, yet charged: {settled}");
            } else {
                assert_eq!(settled["status"], "paid", "{settled}");
                assert_eq!(attempts.len(), 1, "{settled}");
                assert_eq!(attempts[0]["status"], "succeeded", "{settled}");
            }
        }
    }

    async fn the_scheduler_invoices_each_month_and_dunning_cancels_after_three_failed_invoices(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        // Monthly from today (2026-01-01 UTC), paid by a card that is stored but always fails.
        let (source, supporter) = donor(&w, &token, org, &account, "4000000000000341").await;
        let (status, s, _) = w.post("/subscriptions", &token, &subscription(&account, &source, &supporter, "active"), None).await;
        assert_eq!(status, 201, "{s}");
        let path = format!("/subscriptions/{}", s["uuid"].as_str().unwrap());
        let invoices = format!("{path}/invoices");
        let day = |d: i64| coffer_testkit::START_UNIX + d * 86_400;
        // Due dates 1 January, 1 February, 1 March; retries 2, 4 and 6 days after each.
        for (n, due) in [(0, 0), (1, 31), (2, 59)] {
            for (attempt, offset) in [0, 2, 4, 6].into_iter().enumerate() {
                w.app.clock.set_unix(day(due + offset) + 3600);
                let token = w.token(org).await;
                let invoice = until(&w, &invoices, &token, |list| {
                    list.as_array().unwrap().get(n).is_some_and(|i| {
                        i["failed_payment_attempts"] == attempt + 1
                    })
                })
                .await[n].clone();
                assert_eq!(invoice["due_date"], day(due), "invoice {n}");
                if attempt < 3 {
                    assert_eq!(invoice["status"], "open");
                    assert_eq!(invoice["next_attempt_date"], day(due + [2, 4, 6][attempt]), "retry {attempt} of invoice {n}");
                } else {
                    assert_eq!(invoice["status"], "cancelled", "after the last retry");
                    assert_eq!(invoice["status_reason"], "failed");
                    assert_eq!(invoice["next_attempt_date"], Value::Null);
                }
            }
            let token = w.token(org).await;
            let now = w.get(&path, &token).await.1;
            assert_eq!(now["consecutive_failed_invoices"], n + 1);
            if n < 2 {
                assert_eq!(now["subscription_status"], "active");
            } else {
                assert_eq!(now["subscription_status"], "cancelled", "the plan's limit of three");
            }
        }
        // Cancelled: the clock moving on makes nothing more.
        w.app.clock.set_unix(day(120));
        tokio::time::sleep(Duration::from_millis(400)).await;
        let token = w.token(org).await;
        assert_eq!(w.get(&invoices, &token).await.1.as_array().unwrap().len(), 3);
    }

    async fn a_paying_subscription_is_invoiced_once_per_charge_date(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let (_, s, _) = w.post("/subscriptions", &token, &subscription(&account, &source, &supporter, "active"), None).await;
        let invoices = format!("/subscriptions/{}/invoices", s["uuid"].as_str().unwrap());
        let paid = until(&w, &invoices, &token, |l| l.as_array().unwrap().len() == 1 && l[0]["status"] == "paid").await;
        assert_eq!(paid[0]["is_manually_created"], false);
        assert_eq!(paid[0]["custom_parameters"], json!({"campaign": "winter", "channel": "web"}));
        // Three months later, three more invoices, each paid; never two for one date.
        w.app.clock.set_unix(coffer_testkit::START_UNIX + 90 * 86_400);
        let token = w.token(org).await;
        let all = until(&w, &invoices, &token, |l| {
            l.as_array().unwrap().len() == 4 && l.as_array().unwrap().iter().all(|i| i["status"] == "paid")
        })
        .await;
        let dues: Vec<i64> = all.as_array().unwrap().iter().map(|i| i["due_date"].as_i64().unwrap()).collect();
        assert_eq!(dues, [1_767_225_600, 1_769_904_000, 1_772_323_200, 1_775_001_600]);
        let now = w.get(&format!("/subscriptions/{}", s["uuid"].as_str().unwrap()), &token).await.1;
        assert_eq!(now["next_due_date"], 1_777_593_600, "1 May");
    }

    async fn schedulers_racing_on_one_database_invoice_each_date_once(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        // Two more schedulers beside the service's own, passing as fast as they can.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let racers: Vec<_> = (0..2)
            .map(|_| {
                let (store, stop) = (w.more[0].clone(), stop.clone());
                let clock = w.app.clock.clone();
                let outbox = coffer_events::Outbox::new("coffer", clock.clone().into_arc());
                tokio::spawn(async move {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        let (out, now) = (outbox.clone(), coffer_model::clock::Clock::unix(&clock));
                        store
                            .run(move |db| coffer_billing::scheduler::tick(db, &out, now, None).map_err(coffer_store::StoreError::from))
                            .await
                            .unwrap();
                    }
                })
            })
            .collect();
        // Each monthly from today, 1 January; then the clock jumps to 1 April, and three
        // more charge dates have come at once.
        let mut paths = Vec::new();
        for _ in 0..20 {
            let (status, s, _) = w.post("/subscriptions", &token, &subscription(&account, &source, &supporter, "active"), None).await;
            assert_eq!(status, 201, "{s}");
            paths.push(format!("/subscriptions/{}/invoices", s["uuid"].as_str().unwrap()));
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        w.app.clock.set_unix(1_775_001_600 + 3600);
        tokio::time::sleep(Duration::from_millis(700)).await;
        let token = w.token(org).await;
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for r in racers {
            r.await.unwrap();
        }
        for path in &paths {
            let invoices = until(&w, path, &token, |l| {
                l.as_array().unwrap().len() >= 4 && l.as_array().unwrap().iter().all(|i| i["status"] == "paid")
            })
            .await;
            let dues: Vec<i64> = invoices.as_array().unwrap().iter().map(|i| i["due_date"].as_i64().unwrap()).collect();
            assert_eq!(dues, [1_767_225_600, 1_769_904_000, 1_772_323_200, 1_775_001_600], "one invoice per date: {path}");
            assert!(invoices.as_array().unwrap().iter().all(|i| i["charge_attempts"].as_array().unwrap().len() == 1),
                "one charge per invoice: {invoices}");
        }
    }
}
