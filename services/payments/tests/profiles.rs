//! Payment method profiles: every account gets its test profiles once payments learns of it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::Value;

async fn profiles_of(w: &World, account: &str, token: &str) -> Value {
    for _ in 0..800 {
        let (status, body) = w
            .get(
                &format!("/payment-method-profiles?account_uuid={account}"),
                token,
            )
            .await;
        if status == 200 && body.as_array().is_some_and(|a| a.len() == 4) {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the account's profiles never appeared");
}

coffer_testkit::backend_tests! {
    async fn a_new_account_gets_one_test_profile_per_method(backend) {
        let w = world(backend).await;
        let org = w.organisation("Alpine Aid").await;
        let token = w.token(org).await;
        let account = w.admin.create_account(org, "Donations").await.unwrap();
        let account = account["uuid"].as_str().unwrap();
        let profiles = profiles_of(&w, account, &token).await;
        let mut methods: Vec<(&str, &str)> = profiles
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["payment_method"].as_str().unwrap(), p["name"].as_str().unwrap()))
            .collect();
        methods.sort_unstable();
        assert_eq!(methods, [("card", "card_test"), ("paypal", "paypal_test"), ("sepa_dd", "sepa_dd_test"), ("twint", "twint_test")]);
        for p in profiles.as_array().unwrap() {
            assert_eq!(p["test_mode"], true);
            assert_eq!(p["provider"], "coffer_test");
            assert_eq!(p["account_uuid"], account);
            assert!(uuid::Uuid::parse_str(p["uuid"].as_str().unwrap()).is_ok());
        }
        // Without an account, the caller's profiles across its accounts.
        let (_, all) = w.get("/payment-method-profiles", &token).await;
        assert_eq!(all.as_array().unwrap().len(), 4);

        let other = w.organisation("Baltic Relief").await;
        let other_token = w.token(other).await;
        assert_eq!(w.get(&format!("/payment-method-profiles?account_uuid={account}"), &other_token).await.0, 403);
        assert_eq!(w.get("/payment-method-profiles", &other_token).await.1, serde_json::json!([]));
        assert_eq!(w.get(&format!("/payment-method-profiles?account_uuid={}", uuid::Uuid::new_v4()), &token).await.0, 404);
        let (status, err) = w.get("/payment-method-profiles?account_uuid=nope", &token).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "account_uuid");
    }
}
