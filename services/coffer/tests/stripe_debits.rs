//! SEPA direct debits through the Stripe connector, against localstripe through `coffer dev`
//! and `coffer admin`: a debit the bank collects succeeds, one it refuses fails once Stripe
//! says so (asked by the bank worker, since localstripe tells nobody), each with one
//! PaymentIntent; what Stripe would refuse is a 400 naming every property first.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod stripe;

use serde_json::{Value, json};
use stripe::*;

/// localstripe's IBAN whose debits the bank refuses; any other valid IBAN is collected.
const REFUSED_IBAN: &str = "DE62370400440532013001";
const COLLECTED_IBAN: &str = "DE89370400440532013000";

fn debit(coffer: &Coffer, iban: &str, currency: &str, email: Option<&str>) -> Value {
    let mut supporter = json!({ "first_name": "Ada", "last_name": "Lovelace" });
    if let Some(email) = email {
        supporter["email"] = json!(email);
    }
    json!({
        "account_uuid": coffer.account,
        "payment_method": "sepa_dd",
        "profile": "sepa_stripe",
        "amount": { "value": 2500, "currency": currency },
        "payment_information": { "iban": iban, "account_holder": "Ada Lovelace" },
        "supporter": supporter,
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sepa_debit_through_stripe_ends_as_the_bank_says_with_one_intent() {
    let coffer = coffer_with_debits(&localstripe()).await;

    let (status, collected) = coffer
        .post(
            "/payments",
            &debit(&coffer, COLLECTED_IBAN, "EUR", Some("ada@example.org")),
        )
        .await;
    assert_eq!(status, 201, "{collected}");
    assert!(
        !collected.to_string().contains(COLLECTED_IBAN),
        "the IBAN is shown whole: {collected}"
    );
    // Stripe makes the mandate, and its reference is the one the payer sees: Coffer's own
    // identifiers, which bank files name, are not given to a debit through Stripe.
    assert_eq!(collected["mandate_reference"], Value::Null, "{collected}");
    assert_eq!(collected["end_to_end_id"], Value::Null, "{collected}");
    let uuid = collected["uuid"].as_str().unwrap();
    let collected = coffer.settled(uuid).await;
    assert_eq!(collected["status"], "succeeded", "{collected}");
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "succeeded", "{intents:?}");

    let (status, refused) = coffer
        .post(
            "/payments",
            &debit(&coffer, REFUSED_IBAN, "EUR", Some("ada@example.org")),
        )
        .await;
    assert_eq!(status, 201, "{refused}");
    // The bank decides later: pending, with nothing for the donor to do.
    assert_eq!(refused["status"], "pending", "{refused}");
    assert_eq!(refused["action"], Value::Null, "{refused}");
    let uuid = refused["uuid"].as_str().unwrap();
    let refused = coffer.settled(uuid).await;
    assert_eq!(refused["status"], "failed", "{refused}");
    assert!(refused["status_reason"].is_string(), "{refused}");
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    // Collected once and refused by the bank; closed at Stripe before Coffer said so.
    assert_eq!(intents[0]["charges"]["total_count"], 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "canceled", "{intents:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn what_stripe_would_refuse_of_a_debit_is_a_400_naming_each_property_first() {
    let coffer = coffer_with_debits(&localstripe()).await;
    let (status, refused) = coffer
        .post("/payments", &debit(&coffer, COLLECTED_IBAN, "CHF", None))
        .await;
    assert_eq!(status, 400, "{refused}");
    let properties: Vec<&str> = refused["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["property"].as_str().unwrap())
        .collect();
    assert!(
        properties.contains(&"amount.currency") && properties.contains(&"supporter.email"),
        "{refused}"
    );
}
