//! Payments through Stripe as an operator sets them up and a client makes them: `coffer
//! dev` against localstripe (scripts/localstripe.sh, `COFFER_TEST_LOCALSTRIPE`), a test
//! connector account and a card profile set with `coffer admin`, then POST /payments and
//! its refunds through the API. Every scenario is checked at localstripe too: one
//! PaymentIntent per payment, charged at most once. Through scripts/fault-proxy.py, answers
//! that never arrive are settled by the settler, never by a second charge.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod stripe;

use std::process::Command;
use std::time::Duration;

use common::COFFER;
use serde_json::{Value, json};
use stripe::*;

/// localstripe's view: every PaymentIntent whose metadata names the payment.
async fn intents_of(payment: &str) -> Vec<Value> {
    intents_at(&localstripe(), payment).await
}

fn proxy() -> Proxy {
    proxy_to(&localstripe())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_payment_goes_through_stripe_and_is_refunded_there() {
    let coffer = coffer(&localstripe()).await;
    let (status, paid) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 2500),
        )
        .await;
    assert_eq!(status, 201, "{paid}");
    assert_eq!(paid["status"], "succeeded", "{paid}");
    assert_eq!(paid["payment_provider"], "stripe");
    assert_eq!(paid["test_mode"], true);
    let uuid = paid["uuid"].as_str().unwrap();
    let intent_id = paid["provider_payment_id"].as_str().unwrap();
    assert!(intent_id.starts_with("pi_"), "{paid}");

    let intents = intents_of(uuid).await;
    assert_eq!(
        intents.len(),
        1,
        "one PaymentIntent per payment: {intents:?}"
    );
    assert_eq!(intents[0]["id"], intent_id);
    assert_eq!(intents[0]["status"], "succeeded");
    assert_eq!(intents[0]["amount"], 2500);
    assert_eq!(intents[0]["currency"], "eur");

    // Part, then the rest: each once at Stripe.
    let (status, part) = coffer
        .post(
            &format!("/payments/{uuid}/refunds"),
            &json!({ "amount": { "value": 1000, "currency": "EUR" } }),
        )
        .await;
    assert_eq!(status, 200, "{part}");
    assert_eq!(part["status"], "succeeded", "{part}");
    let (status, rest) = coffer
        .post(&format!("/payments/{uuid}/refunds"), &json!({}))
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["amount"]["value"], "1500");
    let refunds: Value = reqwest::Client::new()
        .get(format!(
            "{}/v1/refunds?payment_intent={intent_id}",
            localstripe()
        ))
        .basic_auth(KEY, Some(""))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut amounts: Vec<i64> = refunds["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["amount"].as_i64().unwrap())
        .collect();
    amounts.sort_unstable();
    assert_eq!(amounts, [1000, 1500]);
    let payment = coffer.get(&format!("/payments/{uuid}")).await;
    assert_eq!(payment["refunded_amount"]["value"], "2500", "{payment}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declined_card_fails_with_stripes_reason_and_charges_nothing() {
    let coffer = coffer(&localstripe()).await;
    let (status, failed) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4000000000000341", 2500),
        )
        .await;
    assert_eq!(status, 201, "{failed}");
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["status_reason"], "card_declined");
    let intents = intents_of(failed["uuid"].as_str().unwrap()).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_ne!(intents[0]["status"], "succeeded");
}

#[tokio::test(flavor = "multi_thread")]
async fn what_stripe_would_refuse_is_refused_before_any_call() {
    let coffer = coffer(&localstripe()).await;
    // Below Stripe's minimum charge for EUR (50 cents).
    let (status, refused) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 49),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused.to_string().contains("amount"), "{refused}");
    // Sources are not kept through Stripe yet: said, never silently made at the test
    // provider.
    let mut keep = coffer.payment("card_stripe", "4242424242424242", 2500);
    keep["create_payment_source"] = json!(true);
    let (status, refused) = coffer.post("/payments", &keep).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("create_payment_source"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_live_profile_takes_no_card_numbers_unless_stripe_allowed_them() {
    let coffer = coffer(&localstripe()).await;
    let dir = coffer.dir.path();
    set_connector_account(dir, &coffer.account, "live", "live", LIVE_KEY);
    let live = set_profile(dir, &coffer.account, "card_live", "live");
    assert_eq!(live["test_mode"], false);
    // Requests for the default would charge real money through it: only when asked.
    assert_eq!(live["is_default"], false, "{live}");
    let args = [
        "profile",
        "set",
        "--account",
        &coffer.account,
        "--name",
        "card_live",
        "--connector-account",
        "live",
        "--default",
    ];
    let live = admin_with_stdin(dir, &args, "");
    assert_eq!(live["is_default"], true, "{live}");
    // A profile keeps the connector account its payments were made through.
    let moved = Command::new(COFFER)
        .arg("admin")
        .arg("--data-dir")
        .arg(dir)
        .args(["profile", "set", "--account", &coffer.account])
        .args(["--name", "card_live", "--connector-account", "main"])
        .output()
        .unwrap();
    assert!(!moved.status.success());
    assert!(
        String::from_utf8_lossy(&moved.stderr).contains("keeps its connector account"),
        "{}",
        String::from_utf8_lossy(&moved.stderr)
    );
    let (status, refused) = coffer
        .post(
            "/payments",
            &coffer.payment("card_live", "4242424242424242", 2500),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("payment_information"),
        "{refused}"
    );
    // The profiles list shows both modes side by side, each with its default.
    let profiles = coffer
        .get(&format!(
            "/payment-method-profiles?account_uuid={}",
            coffer.account
        ))
        .await;
    let card_defaults: Vec<(&str, bool)> = profiles
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["payment_method"] == "card" && p["is_default"] == true)
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["test_mode"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(card_defaults.len(), 2, "{profiles}");
    assert!(card_defaults.contains(&("card_live", false)), "{profiles}");
    // The default of the method is the live one: a request for it is refused card data.
    let mut by_default = coffer.payment("default", "4242424242424242", 2500);
    by_default["profile"] = json!("default");
    let (status, refused) = coffer.post("/payments", &by_default).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("payment_information"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_that_asks_for_3d_secure_fails_until_the_donor_has_a_page() {
    let coffer = coffer(&localstripe()).await;
    let (status, failed) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4000002500003155", 2500),
        )
        .await;
    assert_eq!(status, 201, "{failed}");
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["status_reason"], "authentication_required");
    let intents = intents_of(failed["uuid"].as_str().unwrap()).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(
        intents[0]["status"], "canceled",
        "no one can charge it later: {intents:?}"
    );
}

/// A card payment of `value` made while the proxy shows `fault`, once it is pending, then
/// as the settler leaves it, with localstripe's PaymentIntents for it.
async fn settled_after(fault: Value, value: i64) -> (Value, Vec<Value>) {
    let proxy = proxy();
    let coffer = coffer(&proxy.listen).await;
    proxy.set(fault).await;
    let (status, pending) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", value),
        )
        .await;
    assert_eq!(status, 201, "{pending}");
    assert_eq!(pending["status"], "pending", "{pending}");
    let uuid = pending["uuid"].as_str().unwrap();
    let settled = coffer.settled(uuid).await;
    (settled, intents_of(uuid).await)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_confirmation_whose_answer_is_lost_is_settled_by_reading_the_intent() {
    // Stripe confirms (and charges); the answer never reaches Coffer.
    let fault = json!({ "fault": "reset", "times": 1, "match": "/confirm" });
    let (settled, intents) = settled_after(fault, 3100).await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    assert_eq!(confirmed(&intents).len(), 1, "charged once: {intents:?}");
    assert_eq!(settled["provider_payment_id"], confirmed(&intents)[0]["id"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_create_whose_answer_is_lost_is_cancelled_and_the_payment_fails() {
    // Stripe makes the PaymentIntent; Coffer never learns its id, so it never confirms.
    let fault = json!({ "fault": "reset", "times": 1, "match": "/v1/payment_intents" });
    let (settled, intents) = settled_after(fault, 3200).await;
    assert_eq!(settled["status"], "failed", "{settled}");
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(
        intents[0]["status"], "canceled",
        "found and cancelled: {intents:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_that_is_slow_hangs_fails_or_is_gone_charges_nothing_twice() {
    let proxy = proxy();
    let coffer = coffer(&proxy.listen).await;
    // Slower than the connector's timeout: Stripe confirmed, the answer came too late.
    proxy
        .set(json!({ "fault": "slow", "delay_ms": 4000, "times": 1, "match": "/confirm" }))
        .await;
    let (_, slow) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 3300),
        )
        .await;
    assert_eq!(slow["status"], "pending", "{slow}");
    // Hanging on the confirmation, which never reached Stripe.
    proxy
        .set(json!({ "fault": "hang", "times": 1, "match": "/confirm" }))
        .await;
    let (_, hung) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 3350),
        )
        .await;
    assert_eq!(hung["status"], "pending", "{hung}");
    // A 500 on the confirmation: Stripe may or may not have acted (here it did not).
    proxy
        .set(json!({ "fault": "status", "status": 500, "times": 1, "match": "/confirm" }))
        .await;
    let (_, errored) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 3400),
        )
        .await;
    assert_eq!(errored["status"], "pending", "{errored}");
    // Gone altogether: nothing was made, and the payment fails once the settler hears so.
    proxy.set(json!({ "fault": "refuse" })).await;
    let (status, unreached) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 3500),
        )
        .await;
    assert_eq!(status, 201, "{unreached}");
    assert_eq!(unreached["status"], "pending", "{unreached}");
    proxy.set(json!({ "fault": "pass" })).await;

    for (payment, status, charged) in [
        (&slow, "succeeded", 1),
        (&hung, "failed", 0),
        (&errored, "failed", 0),
        (&unreached, "failed", 0),
    ] {
        let uuid = payment["uuid"].as_str().unwrap();
        let now = coffer.settled(uuid).await;
        assert_eq!(now["status"], status, "{now}");
        let intents = intents_of(uuid).await;
        assert_eq!(confirmed(&intents).len(), charged, "{now}: {intents:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_between_the_confirmation_and_its_commit_the_charge_is_settled_once() {
    let proxy = proxy();
    let mut coffer = coffer(&proxy.listen).await;
    // Stripe confirms at once; its answer is held, and Coffer is killed while it waits.
    proxy
        .set(json!({ "fault": "slow", "delay_ms": 1500, "times": 1, "match": "/confirm" }))
        .await;
    let body = coffer.payment("card_stripe", "4242424242424242", 3600);
    let (base, token) = (coffer.base.clone(), coffer.token.clone());
    let asked = tokio::spawn(async move {
        reqwest::Client::new()
            .post(format!("{base}/payments"))
            .bearer_auth(token)
            .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
            .json(&body)
            .send()
            .await
    });
    let stats = format!("{}/stats", proxy.control);
    for _ in 0..100 {
        let seen: Value = reqwest::get(&stats).await.unwrap().json().await.unwrap();
        if seen["faulted"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    coffer.killed_and_restarted().await;
    assert!(asked.await.unwrap().is_err(), "the client heard no answer");

    // The restarted Coffer holds the payment pending, and its settler finds the charge.
    let (status, found) = coffer
        .post(
            "/search/payments",
            &json!({ "query": { "$match": { "account_uuid": coffer.account } } }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{found}");
    let uuid = hits[0]["uuid"].as_str().unwrap().to_owned();
    let settled = coffer.settled(&uuid).await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    let intents = intents_of(&uuid).await;
    assert_eq!(confirmed(&intents).len(), 1, "charged once: {intents:?}");
}
