//! Subscription plans through HTTP: the global default, names, default flags, settings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::json;

const GLOBAL: &str = "00000000-0000-4000-8000-000000000001";

coffer_testkit::backend_tests! {
    async fn plans_list_beside_the_global_default_which_never_changes(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (status, list) = w.get("/subscription-plans", &token).await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(list.as_array().unwrap().len(), 1);
        assert_eq!(list[0]["uuid"], GLOBAL);
        assert_eq!(list[0]["is_default"], true, "the fallback of an organisation without its own");
        assert_eq!(list[0]["dunning_configuration"], json!({"retry_after_days": [2, 4, 6], "cancel_subscription_after_failed_invoices": 3}));
        assert_eq!(w.patch(&format!("/subscription-plans/{GLOBAL}"), &token, &json!({"name": "Mine"})).await.0, 403);

        let body = json!({"organisation_uuid": org, "name": "Monthly givers", "is_default": true,
            "dunning_configuration": {"retry_after_days": [1, 3]},
            "notification_configuration": {"notify_before_charge_days": 3, "notify_on_failed_attempt": true}});
        let (status, monthly, _) = w.post("/subscription-plans", &token, &body, None).await;
        assert_eq!(status, 201, "{monthly}");
        assert_eq!(monthly["dunning_configuration"], json!({"retry_after_days": [1, 3], "cancel_subscription_after_failed_invoices": 3}));
        assert_eq!(monthly["notification_configuration"], json!({"notify_before_charge_days": 3, "notify_on_failed_attempt": true}));
        let path = format!("/subscription-plans/{}", monthly["uuid"].as_str().unwrap());
        assert_eq!(w.get(&path, &token).await.1, monthly);
        let (_, list) = w.get(&format!("/subscription-plans?organisation_uuid={org}"), &token).await;
        assert_eq!(list[0]["is_default"], false, "the organisation has its own default now");
        assert_eq!(list.as_array().unwrap().len(), 2);

        // The same name again is 409; another name is fine; the default flag moves.
        assert_eq!(w.post("/subscription-plans", &token, &body, None).await.0, 409);
        let (status, yearly, _) = w.post("/subscription-plans", &token, &json!({"organisation_uuid": org, "name": "Yearly", "is_default": true}), None).await;
        assert_eq!(status, 201, "{yearly}");
        assert_eq!(w.get(&path, &token).await.1["is_default"], false, "the default moved to the new plan");
        assert_eq!(w.patch(&path, &token, &json!({"name": "Yearly"})).await.0, 409);

        // An account's own default does not take the organisation's.
        let (_, account_plan, _) = w.post("/subscription-plans", &token, &json!({"organisation_uuid": org, "account_uuid": account, "name": "Account plan", "is_default": true}), None).await;
        assert_eq!(account_plan["account_uuid"], account.as_str());
        let yearly_path = format!("/subscription-plans/{}", yearly["uuid"].as_str().unwrap());
        assert_eq!(w.get(&yearly_path, &token).await.1["is_default"], true);

        let (status, renamed) = w.patch(&path, &token, &json!({"name": "Monthly", "is_default": true, "dunning_configuration": {"cancel_subscription_after_failed_invoices": 5}})).await;
        assert_eq!(status, 200, "{renamed}");
        assert_eq!(renamed["name"], "Monthly");
        assert_eq!(renamed["dunning_configuration"], json!({"retry_after_days": [2, 4, 6], "cancel_subscription_after_failed_invoices": 5}));
        assert_eq!(w.get(&yearly_path, &token).await.1["is_default"], false);
        // SPEC.md: on update, is_default left out is false.
        let (status, unsaid) = w.patch(&path, &token, &json!({"name": "Monthly givers"})).await;
        assert_eq!(status, 200, "{unsaid}");
        assert_eq!(unsaid["is_default"], false, "{unsaid}");
        assert_eq!(w.get(&path, &token).await.1["is_default"], false);
    }

    async fn bad_plans_are_named_and_other_tenants_refused(backend) {
        let w = billing_world(backend).await;
        let (org, _, token) = billing_merchant(&w).await;
        let (status, err, _) = w.post("/subscription-plans", &token, &json!({"organisation_uuid": org, "name": " ",
            "dunning_configuration": {"retry_after_days": [3, 2]}}), None).await;
        assert_eq!(status, 400);
        assert_eq!(err["code"], "bad_request", "shape B: {err}");
        let properties: Vec<&str> = err["errors"].as_array().unwrap().iter().map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(properties, ["name", "dunning_configuration.retry_after_days[1]"]);
        let (status, err, _) = w.post("/subscription-plans", &token, &json!({"name": "x"}), None).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "organisation_uuid");
        let (status, _, _) = w.post("/subscription-plans", &token, &json!({"organisation_uuid": org, "name": "x", "account_uuid": uuid::Uuid::new_v4()}), None).await;
        assert_eq!(status, 404, "an unknown account");

        let (_, plan, _) = w.post("/subscription-plans", &token, &json!({"organisation_uuid": org, "name": "Ours"}), None).await;
        let path = format!("/subscription-plans/{}", plan["uuid"].as_str().unwrap());
        let other_org = w.organisation("Other").await;
        let other = w.token(other_org).await;
        assert_eq!(w.get(&path, &other).await.0, 403);
        assert_eq!(w.patch(&path, &other, &json!({"name": "Theirs"})).await.0, 403);
        assert_eq!(w.post("/subscription-plans", &other, &json!({"organisation_uuid": org, "name": "Sneaky"}), None).await.0, 403);
        assert_eq!(w.get(&format!("/subscription-plans?organisation_uuid={org}"), &other).await.0, 403);
        let (_, theirs) = w.get("/subscription-plans", &other).await;
        assert_eq!(theirs.as_array().unwrap().len(), 1, "only the global plan: {theirs}");
        assert_eq!(w.get(&format!("/subscription-plans/{}", uuid::Uuid::new_v4()), &token).await.0, 404);
    }
}
