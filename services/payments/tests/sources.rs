//! Payment sources: stored instruments, and charging them again as billing will.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

fn source(account: &str, number: &str) -> Value {
    json!({
        "account_uuid": account,
        "payment_method": "card",
        "amount": {"value": "100", "currency": "CHF"},
        "payment_information": {"number": number, "expiry_month": 6, "expiry_year": 2031, "cvv": "321"}
    })
}

coffer_testkit::backend_tests! {
    async fn cards_are_stored_masked_and_charged_again_by_the_platform(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (status, active, _) = w.post("/payment-sources", &token, &source(&account, "4242424242424242"), None).await;
        assert_eq!(status, 201, "{active}");
        assert_eq!(active["status"], "active");
        assert_eq!(active["payment_information"]["last4"], "4242");
        assert_eq!(active["test_mode"], true);
        assert!(active.get("provider_reference").is_none(), "the provider's handle stays inside");
        let path = format!("/payment-sources/{}", active["uuid"].as_str().unwrap());
        assert_eq!(w.get(&path, &token).await.1, active);
        let res = w.app.http.put(w.app.url(&format!("{path}/custom-parameters"))).bearer_auth(&token).json(&json!({"k": "v"})).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(w.get(&path, &token).await.1["custom_parameters"], json!({"k": "v"}));

        let (status, declined, _) = w.post("/payment-sources", &token, &source(&account, "4000000000000002"), None).await;
        assert_eq!(status, 201);
        assert_eq!(declined["status"], "failed");
        assert_eq!(declined["status_reason"], "card_declined");

        let platform = w.app.platform_token();
        let charge = json!({"amount": {"value": "2500", "currency": "CHF"}, "subscription_uuid": "5f0c4a52-8c2f-4d36-9a86-1b6ad2f8c7b1"});
        let (status, paid, _) = w.post(&format!("{path}/charges"), &platform, &charge, None).await;
        assert_eq!(status, 201, "{paid}");
        assert_eq!(paid["status"], "succeeded");
        assert_eq!(paid["amount"]["value"], "2500");
        assert_eq!(paid["subscription_uuid"], "5f0c4a52-8c2f-4d36-9a86-1b6ad2f8c7b1");
        assert_eq!(paid["payment_information"]["last4"], "4242");
        assert_eq!(w.get(&format!("/payments/{}", paid["uuid"].as_str().unwrap()), &token).await.0, 200);

        // A merchant's own token cannot charge a stored card; a failed source cannot be charged.
        assert_eq!(w.post(&format!("{path}/charges"), &token, &charge, None).await.0, 403);
        let failed_path = format!("/payment-sources/{}/charges", declined["uuid"].as_str().unwrap());
        assert_eq!(w.post(&failed_path, &platform, &charge, None).await.0, 409);

        // 4000000000000341 is stored, but every later charge of it fails.
        let (_, flaky, _) = w.post("/payment-sources", &token, &source(&account, "4000000000000341"), None).await;
        assert_eq!(flaky["status"], "active");
        let (_, failed, _) = w.post(&format!("/payment-sources/{}/charges", flaky["uuid"].as_str().unwrap()), &platform, &charge, None).await;
        assert_eq!(failed["status"], "failed");
        assert_eq!(failed["status_reason"], "card_declined");

        let other = w.token(w.organisation("Other").await).await;
        assert_eq!(w.get(&path, &other).await.0, 403);
        assert_eq!(w.get(&format!("/payment-sources/{}", uuid::Uuid::new_v4()), &token).await.0, 404);
    }
}
