//! A charge never runs twice: retries, timeouts and an unreachable provider each end with
//! exactly one charge at the provider (its book, counted by key) and one payment.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

fn card_payment(account: &str) -> Value {
    json!({
        "account_uuid": account,
        "payment_method": "card",
        "amount": {"value": "2500", "currency": "CHF"},
        "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"},
    })
}

/// Moves the clock past the settling delay and waits until the payment leaves `pending`.
async fn settled(w: &World, token: &str, uuid: &str) -> Value {
    w.app
        .clock
        .advance(time::Duration::seconds(SETTLE_AFTER.as_secs() as i64 + 1));
    for _ in 0..400 {
        let (_, p) = w.get(&format!("/payments/{uuid}"), token).await;
        if p["status"] != "pending" {
            return p;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("payment {uuid} was never settled");
}

coffer_testkit::backend_tests! {
    async fn a_retried_payment_is_charged_once(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let body = card_payment(&account);
        let (status, first, _) = w.post("/payments", &token, &body, Some("donation-1")).await;
        assert_eq!(status, 201, "{first}");
        assert_eq!(first["status"], "succeeded");
        let (status, again, headers) = w.post("/payments", &token, &body, Some("donation-1")).await;
        assert_eq!((status, &again), (201, &first));
        assert_eq!(headers["idempotent-replayed"], "true");

        // Twenty clients retrying at once with one key: one payment, one charge.
        let retries: Vec<_> = (0..20).map(|_| {
            let (http, url, token, body) = (w.app.http.clone(), w.app.url("/payments"), token.clone(), body.clone());
            tokio::spawn(async move {
                let res = http.post(url).bearer_auth(token).header("Idempotency-Key", "donation-2").json(&body).send().await.unwrap();
                (res.status().as_u16(), res.json::<Value>().await.unwrap())
            })
        }).collect();
        let mut uuids = Vec::new();
        for r in retries {
            let (status, p) = r.await.unwrap();
            assert!(status == 201 || status == 409, "{status} {p}");
            if status == 201 {
                uuids.push(p["uuid"].clone());
            }
        }
        uuids.dedup();
        assert_eq!(uuids.len(), 1, "{uuids:?}");
        let booked = w.provider_book("charge").await;
        assert_eq!(booked.len(), 2, "one charge per payment");
        assert!(booked.iter().all(|e| e.requests == 1), "no key was even asked twice");
        assert_eq!(w.payments_of(&token, &account).await.len(), 2);
    }

    async fn a_provider_that_never_answers_leaves_the_payment_pending_until_asked(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        w.faults.set(Some(Fault::HangAfterCall));
        let (status, pending, _) = w.post("/payments", &token, &card_payment(&account), Some("hang-1")).await;
        assert_eq!(status, 201, "{pending}");
        assert_eq!(pending["status"], "pending", "the outcome is not known yet");
        let uuid = pending["uuid"].as_str().unwrap();
        // A retry while the outcome is unknown shows the same payment and charges nothing.
        let (status, retried, _) = w.post("/payments", &token, &card_payment(&account), Some("hang-1")).await;
        assert_eq!((status, retried["uuid"].as_str()), (201, Some(uuid)));
        // Nor can it be cancelled while its provider may be charging it.
        let res = w.app.http.post(w.app.url(&format!("/payments/{uuid}/cancel"))).bearer_auth(&token).send().await.unwrap();
        assert_eq!(res.status(), 400);

        w.faults.set(None);
        let done = settled(&w, &token, uuid).await;
        assert_eq!(done["status"], "succeeded", "the provider charged it: {done}");
        let booked = w.provider_book("charge").await;
        assert_eq!(booked.len(), 1);
        assert_eq!(booked[0].idempotency_key, uuid, "the provider's key is the payment's uuid");
        assert_eq!(booked[0].requests, 1, "settling asked about the key, it did not charge again");
        let (_, replayed, _) = w.post("/payments", &token, &card_payment(&account), Some("hang-1")).await;
        assert_eq!(replayed["status"], "succeeded");
        assert_eq!(w.payments_of(&token, &account).await.len(), 1);
    }

    async fn a_provider_that_cannot_be_reached_charges_nothing(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        w.faults.set(Some(Fault::FailBeforeCall));
        let (status, pending, _) = w.post("/payments", &token, &card_payment(&account), None).await;
        assert_eq!((status, pending["status"].as_str()), (201, Some("pending")), "{pending}");
        let uuid = pending["uuid"].as_str().unwrap();
        // While the provider cannot be asked either, the payment waits.
        w.app.clock.advance(time::Duration::seconds(SETTLE_AFTER.as_secs() as i64 + 1));
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(w.get(&format!("/payments/{uuid}"), &token).await.1["status"], "pending");

        w.faults.set(None);
        let done = settled(&w, &token, uuid).await;
        assert_eq!(done["status"], "failed");
        assert_eq!(done["status_reason"], "provider_unreachable");
        assert!(w.provider_book("charge").await.is_empty(), "nothing reached the provider, nothing was sent later");
    }

    async fn a_refund_reaches_the_provider_once(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (_, paid, _) = w.post("/payments", &token, &card_payment(&account), None).await;
        let path = format!("/payments/{}/refunds", paid["uuid"].as_str().unwrap());
        let body = json!({"amount": {"value": "1000", "currency": "CHF"}});
        let (status, refund, _) = w.post(&path, &token, &body, Some("refund-1")).await;
        assert_eq!(status, 200, "{refund}");
        assert_eq!(refund["status"], "succeeded");
        let (_, again, _) = w.post(&path, &token, &body, Some("refund-1")).await;
        assert_eq!(again, refund);
        let refunds = w.provider_book("refund").await;
        assert_eq!(refunds.len(), 1);
        assert_eq!(refunds[0].idempotency_key, refund["uuid"].as_str().unwrap());

        // A refund whose answer is lost is settled by asking, and gives back once.
        w.faults.set(Some(Fault::HangAfterCall));
        let (status, unknown, _) = w.post(&path, &token, &json!({"amount": {"value": "500", "currency": "CHF"}}), None).await;
        assert_eq!((status, unknown["status"].as_str()), (200, Some("pending")), "{unknown}");
        w.faults.set(None);
        w.app.clock.advance(time::Duration::seconds(SETTLE_AFTER.as_secs() as i64 + 1));
        let payment = format!("/payments/{}", paid["uuid"].as_str().unwrap());
        let mut statuses = Value::Null;
        for _ in 0..400 {
            let (_, p) = w.get(&payment, &token).await;
            statuses = json!(p["refunds"].as_array().unwrap().iter().map(|r| r["status"].clone()).collect::<Vec<_>>());
            if statuses == json!(["succeeded", "succeeded"]) {
                assert_eq!(p["refunded_amount"]["value"], "1500");
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(statuses, json!(["succeeded", "succeeded"]));
        let refunds = w.provider_book("refund").await;
        assert_eq!(refunds.len(), 2);
        assert!(refunds.iter().all(|e| e.requests == 1));
    }

    async fn a_retried_payment_source_is_kept_once(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let body = card_payment(&account);
        let (status, first, _) = w.post("/payment-sources", &token, &body, Some("card-1")).await;
        assert_eq!(status, 201, "{first}");
        let (status, again, headers) = w.post("/payment-sources", &token, &body, Some("card-1")).await;
        assert_eq!((status, &again), (201, &first));
        assert_eq!(headers["idempotent-replayed"], "true");
        let kept = w.provider_book("store").await;
        assert_eq!(kept.len(), 1, "the provider kept the card once");
        assert_eq!(kept[0].requests, 1);
        assert_eq!(kept[0].idempotency_key, first["uuid"].as_str().unwrap());
    }
}
