//! Billing under test beside identity and payments, each on its own database, sharing one
//! bus, as in production. The world itself is payments' test world.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../payments/tests/common/mod.rs"]
mod world;

use std::sync::Arc;
use std::time::Duration;

use coffer_billing::{Billing, BillingSettings};
use coffer_http::Module;
use uuid::Uuid;
pub use world::*;

pub async fn billing_world(backend: Backend) -> World {
    world_with(backend, &[coffer_billing::MIGRATIONS], |h, stores| {
        vec![Arc::new(Billing::new(
            stores[0].clone(),
            h.clock_arc(),
            h.bus.clone(),
            BillingSettings {
                // Quick passes, so tests wait little after moving the clock.
                scheduler_every: Duration::from_millis(100),
                ..BillingSettings::default()
            },
        )) as Arc<dyn Module>]
    })
    .await
}

/// Waits until billing's copy of identity holds `account`.
pub async fn known_to_billing(w: &World, account: &str) {
    for _ in 0..800 {
        let key = account.to_owned();
        let known = w.more[0]
            .query(move |db| coffer_billing::replica::account_organisation(db, &key))
            .await
            .unwrap();
        if known.is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("billing never learnt of account {account}");
}

/// An organisation with an account both payments and billing know, and a token for it.
pub async fn billing_merchant(w: &World) -> (Uuid, String, String) {
    let (org, account, token) = w.merchant().await;
    known_to_billing(w, &account).await;
    (org, account, token)
}

/// A card payment source (`number` decides how it fares) and a supporter of the merchant,
/// once billing has heard of both: (source, supporter).
pub async fn donor(
    w: &World,
    token: &str,
    org: Uuid,
    account: &str,
    number: &str,
) -> (String, String) {
    let body = serde_json::json!({
        "account_uuid": account, "payment_method": "card", "amount": {"value": "100", "currency": "CHF"},
        "payment_information": {"number": number, "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}
    });
    let (status, source, _) = w.post("/payment-sources", token, &body, None).await;
    assert_eq!(status, 201, "{source}");
    let (status, supporter, _) = w
        .post("/supporters", token, &serde_json::json!({"organisation_uuid": org, "first_name": "Ada", "last_name": "Lovelace"}), None)
        .await;
    assert_eq!(status, 201, "{supporter}");
    let (source, supporter) = (
        source["uuid"].as_str().unwrap().to_owned(),
        supporter["uuid"].as_str().unwrap().to_owned(),
    );
    for _ in 0..800 {
        let (s, p) = (source.clone(), supporter.clone());
        let known = w.more[0]
            .query(move |db| {
                Ok(coffer_billing::replica::source(db, &s)?.is_some()
                    && coffer_billing::replica::supporter_organisation(db, &p)?.is_some())
            })
            .await
            .unwrap();
        if known {
            return (source, supporter);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("billing never learnt of source {source} and supporter {supporter}");
}
