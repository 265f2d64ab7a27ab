//! What Stripe tells a connector account's endpoint (`POST
//! /provider-notifications/stripe/{connector_account_uuid}`), through `coffer dev`: a
//! charge whose answer was lost is decided by localstripe's own signed notification (a
//! localstripe of these tests' own, `COFFER_TEST_LOCALSTRIPE_WEBHOOKS`, since it sends every
//! event to every endpoint registered with it), and notifications that are unsigned, signed
//! with another secret, stale, replayed, late or sent to another account's endpoint change
//! nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod stripe;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lc_rs::hmac;
use serde_json::{Value, json};
use stripe::*;

const SECRET: &str = "whsec_coffer_notifications_test_0001";
const OTHER_SECRET: &str = "whsec_coffer_notifications_test_0002";

fn localstripe_webhooks() -> String {
    std::env::var("COFFER_TEST_LOCALSTRIPE_WEBHOOKS").expect(
        "COFFER_TEST_LOCALSTRIPE_WEBHOOKS is the base URL of a localstripe that sends \
         webhooks (LOCALSTRIPE_PORT=18421 scripts/localstripe.sh; make test sets it)",
    )
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// `Stripe-Signature` for `body` at `time` with `secret`, as Stripe makes it.
fn signature(secret: &str, time: i64, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    let mut signed = format!("{time}.").into_bytes();
    signed.extend_from_slice(body);
    let tag = hmac::sign(&key, &signed);
    let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("t={time},v1={hex}")
}

/// A `payment_intent.*` event of `id` about `intent` (as localstripe or Stripe shows it).
fn event(id: &str, kind: &str, intent: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": id, "object": "event", "type": kind, "livemode": false,
        "created": now(), "data": { "object": intent }
    }))
    .unwrap()
}

impl Coffer {
    /// Sends `body` to `connector_account`'s endpoint, signed with `header` when given.
    async fn notify(
        &self,
        connector_account: &str,
        header: Option<&str>,
        body: &[u8],
    ) -> (u16, Value) {
        let mut req = self
            .http
            .post(format!(
                "{}/provider-notifications/stripe/{connector_account}",
                self.base
            ))
            .header("Content-Type", "application/json; charset=utf-8")
            .body(body.to_vec());
        if let Some(header) = header {
            req = req.header("Stripe-Signature", header);
        }
        let res = req.send().await.unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// The value of the metric line that starts with `series`, 0 when there is none.
    async fn metric(&self, series: &str) -> f64 {
        let text = self
            .http
            .get(format!("{}/metrics", self.base))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.lines()
            .find(|l| l.starts_with(series))
            .and_then(|l| l.rsplit(' ').next())
            .map_or(0.0, |v| v.parse().unwrap())
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_charge_whose_answer_is_lost_is_decided_by_stripes_notification() {
    let api = localstripe_webhooks();
    let proxy = proxy_to(&api);
    let coffer = coffer_with(&proxy.listen, Some(SECRET)).await;
    // localstripe sends each event to every endpoint registered with it, signed with that
    // endpoint's secret: this test's Coffer is one more.
    let endpoint = format!(
        "{}/provider-notifications/stripe/{}",
        coffer.base, coffer.connector_account
    );
    let registered = reqwest::Client::new()
        // One fixed id, so each run replaces the last one's endpoint rather than adding one.
        .post(format!("{api}/_config/webhooks/coffer-notifications-test"))
        .json(&json!({
            "url": endpoint, "secret": SECRET,
            "events": ["payment_intent.succeeded", "payment_intent.payment_failed"]
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(registered.status(), 200);

    // Stripe confirms the charge; its answer never reaches Coffer.
    proxy
        .set(json!({ "fault": "reset", "times": 1, "match": "/confirm" }))
        .await;
    let (status, pending) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 4100),
        )
        .await;
    assert_eq!(status, 201, "{pending}");
    // localstripe sends its notification a second after the charge, so the answer to the
    // request is still the unknown one.
    assert_eq!(pending["status"], "pending", "{pending}");
    let uuid = pending["uuid"].as_str().unwrap();

    let settled = coffer.settled(uuid).await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    // Counted just after the payment is recorded: asked as a client polls, bounded.
    let applied = r#"coffer_provider_notifications_total{outcome="applied",provider="stripe"}"#;
    let mut counted = 0.0;
    for _ in 0..50 {
        counted = coffer.metric(applied).await;
        if counted > 0.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        counted, 1.0,
        "the notification decided the payment, not the settler"
    );
    let intents = intents_at(&api, uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "succeeded");
    assert_eq!(settled["provider_payment_id"], intents[0]["id"]);
    assert_eq!(confirmed(&intents).len(), 1);
}

/// A card payment of 23.00 through Stripe, succeeded.
async fn paid_2300(coffer: &Coffer) -> Value {
    let (status, paid) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 2300),
        )
        .await;
    assert_eq!(status, 201, "{paid}");
    paid
}

#[tokio::test(flavor = "multi_thread")]
async fn forged_stale_replayed_late_and_misdirected_notifications_change_nothing() {
    let coffer = coffer_with(&localstripe(), Some(SECRET)).await;
    let paid = paid_2300(&coffer).await;
    assert_eq!(paid["status"], "succeeded", "{paid}");
    let uuid = paid["uuid"].as_str().unwrap();
    let intent_id = paid["provider_payment_id"].as_str().unwrap();
    let declined = json!({
        "id": intent_id, "object": "payment_intent", "status": "requires_payment_method",
        "amount": 2300, "currency": "eur", "metadata": { "coffer_payment_uuid": uuid },
        "last_payment_error": { "code": "card_declined", "decline_code": "insufficient_funds" },
        "next_action": null
    });
    let late = event(
        "evt_coffer_late_1",
        "payment_intent.payment_failed",
        declined.clone(),
    );
    let ca = coffer.connector_account.clone();

    // Unsigned, signed with another secret, signed for another body, or signed too long ago.
    let (status, body) = coffer.notify(&ca, None, &late).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["errors"][0]["property"], "Stripe-Signature", "{body}");
    let other = signature(OTHER_SECRET, now(), &late);
    assert_eq!(coffer.notify(&ca, Some(&other), &late).await.0, 400);
    let for_another_body = signature(SECRET, now(), b"{}");
    assert_eq!(
        coffer.notify(&ca, Some(&for_another_body), &late).await.0,
        400
    );
    let stale = signature(SECRET, now() - 400, &late);
    let (status, body) = coffer.notify(&ca, Some(&stale), &late).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("stale"), "{body}");
    let mismatches = r#"coffer_provider_notifications_total{outcome="mismatch",provider="stripe"}"#;
    assert_eq!(coffer.metric(mismatches).await, 2.0);

    // Signed properly, a late failure never moves a succeeded payment back; sent again it is
    // recognised.
    let signed = signature(SECRET, now(), &late);
    let (status, body) = coffer.notify(&ca, Some(&signed), &late).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["outcome"], "disagrees", "{body}");
    let (status, body) = coffer.notify(&ca, Some(&signed), &late).await;
    assert_eq!(
        (status, &body["received"]),
        (200, &json!("duplicate")),
        "{body}"
    );

    // The same word about a payment this endpoint's connector account did not make: another
    // account's connector account, with its own secret.
    let elsewhere = uuid::Uuid::new_v4().to_string();
    let args = [
        "connector-account",
        "set",
        "--account",
        &elsewhere,
        "--name",
        "elsewhere",
        "--mode",
        "test",
    ];
    let other_account = admin_with_stdin(
        coffer.dir.path(),
        &args,
        &format!("{KEY}\n{OTHER_SECRET}\n"),
    );
    let other_ca = other_account["uuid"].as_str().unwrap();
    let misdirected = event(
        "evt_coffer_misdirected_1",
        "payment_intent.payment_failed",
        declined,
    );
    let signed = signature(OTHER_SECRET, now(), &misdirected);
    let (status, body) = coffer.notify(other_ca, Some(&signed), &misdirected).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["outcome"], "not_the_payments", "{body}");

    // An endpoint nobody has, and one whose account has no webhook secret.
    let nobody = uuid::Uuid::new_v4().to_string();
    assert_eq!(
        coffer.notify(&nobody, Some(&signed), &misdirected).await.0,
        404
    );
    let args = [
        "connector-account",
        "set",
        "--account",
        &coffer.account,
        "--name",
        "unsigned",
        "--mode",
        "test",
    ];
    let unsigned = admin_with_stdin(coffer.dir.path(), &args, &format!("{KEY}\n"));
    let (status, body) = coffer
        .notify(
            unsigned["uuid"].as_str().unwrap(),
            Some(&signed),
            &misdirected,
        )
        .await;
    assert_eq!(status, 400, "{body}");

    // Unreadable, though signed.
    let garbage = b"{\"id\": 5}";
    let signed = signature(SECRET, now(), garbage);
    assert_eq!(coffer.notify(&ca, Some(&signed), garbage).await.0, 400);

    let payment = coffer.get(&format!("/payments/{uuid}")).await;
    assert_eq!(payment["status"], "succeeded", "{payment}");
    assert_eq!(payment["status_reason"], Value::Null, "{payment}");
}

/// A `charge.dispute.*` event `id` of Stripe's dispute `dispute` of `intent`, in `status`,
/// made at `at`.
fn dispute_event(id: &str, kind: &str, intent: &str, status: &str, at: i64) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": id, "object": "event", "type": kind, "livemode": false, "created": at,
        "data": { "object": {
            "id": "dp_coffer_1", "object": "dispute", "amount": 2300, "currency": "eur",
            "payment_intent": intent, "charge": "ch_coffer_1", "reason": "fraudulent",
            "status": status
        } }
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dispute_is_recorded_on_its_payment_and_a_late_word_never_moves_it_back() {
    let coffer = coffer_with(&localstripe(), Some(SECRET)).await;
    let paid = paid_2300(&coffer).await;
    let uuid = paid["uuid"].as_str().unwrap();
    let intent = paid["provider_payment_id"].as_str().unwrap();
    let ca = coffer.connector_account.clone();
    let send = |body: Vec<u8>| {
        let header = signature(SECRET, now(), &body);
        let coffer = &coffer;
        let ca = ca.clone();
        async move { coffer.notify(&ca, Some(&header), &body).await }
    };
    let path = format!("/payments/{uuid}/disputes");
    assert_eq!(coffer.get(&path).await, json!([]));

    let t = now();
    let opened = dispute_event(
        "evt_dp_1",
        "charge.dispute.created",
        intent,
        "needs_response",
        t,
    );
    let (status, body) = send(opened.clone()).await;
    assert_eq!(
        (status, body["received"].as_str()),
        (200, Some("applied")),
        "{body}"
    );
    let listed = coffer.get(&path).await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["status"], "needs_response", "{listed}");
    assert_eq!(listed[0]["reason"], "fraudulent", "{listed}");
    assert_eq!(listed[0]["payment_uuid"], uuid, "{listed}");
    assert_eq!(listed[0]["amount"]["currency"], "EUR", "{listed}");

    let closed = dispute_event("evt_dp_2", "charge.dispute.closed", intent, "lost", t + 20);
    assert_eq!(send(closed).await.0, 200);
    assert_eq!(coffer.get(&path).await[0]["status"], "lost");
    // An update made before the close, arriving after it, changes nothing.
    let late = dispute_event(
        "evt_dp_3",
        "charge.dispute.updated",
        intent,
        "under_review",
        t + 10,
    );
    let (status, body) = send(late).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["outcome"], "already_recorded", "{body}");
    assert_eq!(coffer.get(&path).await[0]["status"], "lost");
    assert_eq!(coffer.get(&path).await.as_array().unwrap().len(), 1);
    // A dispute of an intent no payment of this account recorded is not its business.
    let stranger = dispute_event(
        "evt_dp_4",
        "charge.dispute.created",
        "pi_not_coffers",
        "needs_response",
        t,
    );
    let (status, body) = send(stranger).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["outcome"], "not_the_payments", "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payout_stripe_reports_paid_becomes_a_coffer_payout_once() {
    let api = localstripe_webhooks();
    let coffer = coffer_with(&api, Some(SECRET)).await;
    let endpoint = format!(
        "{}/provider-notifications/stripe/{}",
        coffer.base, coffer.connector_account
    );
    // Its own registration, for payouts only: the other tests' endpoints are registered
    // for PaymentIntent events, which localstripe keeps apart.
    let registered = reqwest::Client::new()
        .post(format!("{api}/_config/webhooks/coffer-payouts-test"))
        .json(&json!({ "url": endpoint, "secret": SECRET, "events": ["payout.paid"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(registered.status(), 200);
    let descriptor = format!("CFT{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    let made: Value = reqwest::Client::new()
        .post(format!("{api}/v1/payouts"))
        .basic_auth(KEY, Some(""))
        .form(&[
            ("amount", "12345"),
            ("currency", "eur"),
            ("status", "paid"),
            ("statement_descriptor", descriptor.as_str()),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(made["id"].as_str().unwrap().starts_with("po_"), "{made}");

    // localstripe sends it a second later; the payout then lists with the account's.
    let path = format!("/payouts?account_uuid={}", coffer.account);
    let mut found = Value::Null;
    for _ in 0..100 {
        let payouts = coffer.get(&path).await;
        if let Some(p) = payouts
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["reference"] == descriptor.as_str())
        {
            found = p.clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(found["amount"]["currency"], "EUR", "{found}");
    assert_eq!(found["amount"], found["gross"], "{found}");
    assert_eq!(found["payment_count"], 0, "{found}");
    assert_eq!(found["status"], "pending", "{found}");

    // The same payout told again, under another event id: still one.
    let again = serde_json::to_vec(&json!({
        "id": "evt_payout_again", "object": "event", "type": "payout.paid", "livemode": false,
        "created": now(), "data": { "object": made }
    }))
    .unwrap();
    let header = signature(SECRET, now(), &again);
    let (status, body) = coffer
        .notify(&coffer.connector_account, Some(&header), &again)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["outcome"], "already_recorded", "{body}");
    let payouts = coffer.get(&path).await;
    let same: Vec<&Value> = payouts
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["reference"] == descriptor.as_str())
        .collect();
    assert_eq!(same.len(), 1, "{payouts}");
}
