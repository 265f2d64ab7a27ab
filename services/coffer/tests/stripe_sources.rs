//! Payment sources through the Stripe connector, against localstripe through `coffer dev`:
//! a card or bank account kept as a Customer's PaymentMethod through a SetupIntent, then
//! charged by billing without the donor, on a test clock, once per invoice, each charge
//! one PaymentIntent; a card the bank declines leaves its invoice to dunning.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod stripe;

use std::time::Duration;

use serde_json::{Value, json};
use stripe::*;

/// 2027-01-01T00:00:00Z
const CLOCK_START: i64 = 1_798_761_600;
const DAY: i64 = 86_400;

/// A payment source kept through `profile` with `information`.
async fn kept(coffer: &Coffer, profile: &str, method: &str, information: Value) -> Value {
    let body = json!({
        "account_uuid": coffer.account,
        "payment_method": method,
        "profile": profile,
        "amount": { "value": 100, "currency": "EUR" },
        "payment_information": information,
        "supporter": { "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org" },
    });
    let (status, source) = coffer.post("/payment-sources", &body).await;
    assert_eq!(status, 201, "{source}");
    source
}

/// A monthly subscription of 20 EUR on `source`, on a new test clock: its uuid and the
/// clock's.
async fn subscribed(coffer: &Coffer, source: &Value) -> (String, String) {
    let (status, clock) = coffer
        .post("/test-clocks", &json!({ "frozen_time": CLOCK_START }))
        .await;
    assert_eq!(status, 201, "{clock}");
    let clock = clock["uuid"].as_str().unwrap().to_owned();
    let (status, supporter) = coffer
        .post(
            "/supporters",
            &json!({ "organisation_uuid": source["organisation_uuid"], "first_name": "Ada", "last_name": "Lovelace" }),
        )
        .await;
    assert_eq!(status, 201, "{supporter}");
    let body = json!({
        "account_uuid": coffer.account, "payment_source_uuid": source["uuid"],
        "supporter_uuid": supporter["uuid"], "test_mode": true, "currency": "EUR",
        "amount": 2000, "recurring_interval": "monthly", "status": "active",
        "test_clock_uuid": clock,
    });
    // Billing learns of the source and supporter from payments' events, a moment later.
    for _ in 0..200 {
        let (status, subscription) = coffer.post("/subscriptions", &body).await;
        if status == 201 {
            return (subscription["uuid"].as_str().unwrap().to_owned(), clock);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("billing never took the subscription");
}

/// The subscription's invoices once the clock, advanced `days`, is ready again.
async fn invoices_after(coffer: &Coffer, subscription: &str, clock: &str, days: i64) -> Vec<Value> {
    let (status, advancing) = coffer
        .post(
            &format!("/test-clocks/{clock}/advance"),
            &json!({ "frozen_time": CLOCK_START + days * DAY }),
        )
        .await;
    assert_eq!(status, 200, "{advancing}");
    for _ in 0..1200 {
        if coffer.get(&format!("/test-clocks/{clock}")).await["status"] == "ready" {
            let invoices = coffer
                .get(&format!("/subscriptions/{subscription}/invoices"))
                .await;
            return invoices.as_array().unwrap().clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the test clock never finished advancing");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_kept_through_stripe_is_charged_by_billing_once_per_invoice() {
    let coffer = coffer(&localstripe()).await;
    let source = kept(&coffer, "card_stripe", "card", card("4242424242424242")).await;
    assert_eq!(source["status"], "active", "{source}");
    assert_eq!(source["payment_provider"], "stripe", "{source}");
    assert!(!source.to_string().contains("4242424242424242"), "{source}");

    let (subscription, clock) = subscribed(&coffer, &source).await;
    let invoices = invoices_after(&coffer, &subscription, &clock, 40).await;
    let statuses: Vec<&str> = invoices
        .iter()
        .map(|i| i["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["paid", "paid"], "{invoices:?}");
    // Each invoice's charge: one PaymentIntent, succeeded, on the kept Customer's card.
    let payments = charged_for(&coffer, &subscription).await;
    assert_eq!(payments.len(), 2, "{payments:?}");
    for payment in &payments {
        assert_eq!(payment["status"], "succeeded", "{payment}");
        let intents = intents_at(&localstripe(), payment["uuid"].as_str().unwrap()).await;
        assert_eq!(intents.len(), 1, "{intents:?}");
        assert_eq!(intents[0]["status"], "succeeded", "{intents:?}");
        assert!(
            intents[0]["customer"].as_str().unwrap().starts_with("cus_"),
            "{intents:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kept_card_the_bank_declines_leaves_the_invoice_to_dunning_and_a_debit_is_kept_too() {
    let coffer = coffer_with_debits(&localstripe()).await;
    // localstripe keeps this card, and declines every charge of it.
    let declining = kept(&coffer, "card_stripe", "card", card("4000000000000341")).await;
    assert_eq!(declining["status"], "active", "{declining}");
    let (subscription, clock) = subscribed(&coffer, &declining).await;
    let invoices = invoices_after(&coffer, &subscription, &clock, 2).await;
    assert_eq!(invoices.len(), 1, "{invoices:?}");
    assert_eq!(invoices[0]["status"], "open", "{invoices:?}");
    assert!(
        invoices[0]["failed_payment_attempts"].as_i64().unwrap() >= 1,
        "{invoices:?}"
    );
    let payments = charged_for(&coffer, &subscription).await;
    assert!(!payments.is_empty());
    for payment in &payments {
        assert_eq!(payment["status"], "failed", "{payment}");
        assert_eq!(payment["status_reason"], "card_declined", "{payment}");
    }

    // A card the bank refuses to keep is no source; nor is one that asks for 3-D Secure,
    // which Coffer has no page for when keeping a card.
    for number in ["4000000000000002", "4000002500003155"] {
        let refused = kept(&coffer, "card_stripe", "card", card(number)).await;
        assert_eq!(refused["status"], "failed", "{refused}");
    }

    // A bank account, kept with its mandate.
    let debit = kept(
        &coffer,
        "sepa_stripe",
        "sepa_dd",
        json!({ "iban": "DE89370400440532013000", "account_holder": "Ada Lovelace" }),
    )
    .await;
    assert_eq!(debit["status"], "active", "{debit}");
    // Stripe makes the mandate and its reference: Coffer's own is not shown.
    assert_eq!(
        debit["payment_information"]["mandate_reference"],
        Value::Null,
        "{debit}"
    );
    assert!(
        !debit.to_string().contains("DE89370400440532013000"),
        "{debit}"
    );

    // Kept with a payment's charge, through Stripe: not yet, said before anything is made.
    let mut with_payment = coffer.payment("card_stripe", "4242424242424242", 1200);
    with_payment["create_payment_source"] = json!(true);
    let (status, refused) = coffer.post("/payments", &with_payment).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("create_payment_source"),
        "{refused}"
    );
}

/// The payments billing charged for `subscription`, found through the search API.
async fn charged_for(coffer: &Coffer, subscription: &str) -> Vec<Value> {
    let (status, found) = coffer
        .post(
            "/search/payments",
            &json!({ "query": { "$match": { "subscription_uuid": subscription } }, "size": 100 }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    found["hits"].as_array().unwrap().clone()
}
