//! Event subscriptions through HTTP, and the sequence a client written for RaiseNow runs to
//! turn its webhooks on and off, replayed request by request.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

async fn endpoint(w: &World, token: &str, org: impl std::fmt::Display) -> String {
    let (status, made) = call(w, "POST", "/webhooks", token, Some(&json!({"organisation_uuid": org.to_string(), "endpoint": "https://crm.example.org/hooks"}))).await;
    assert_eq!(status, 201, "{made}");
    made["uuid"].as_str().unwrap().to_owned()
}

coffer_testkit::backend_tests! {
    async fn a_client_written_for_raisenow_turns_its_webhook_on_and_off(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        // On: list the endpoints, create one without duplicating, list its subscriptions,
        // subscribe with the client's own prefix and a string filter.
        let (status, listed) = call(&w, "GET", &format!("/webhooks?organisation_uuid={org}"), &token, None).await;
        assert_eq!((status, listed), (200, json!([])));
        let hook = json!({"organisation_uuid": org, "endpoint": "https://n8n.example.org/webhook/abc", "alias": "n8n"});
        let (status, made) = call(&w, "POST", "/webhooks?prevent_duplicates=true", &token, Some(&hook)).await;
        assert_eq!(status, 201, "{made}");
        let (status, again) = call(&w, "POST", "/webhooks?prevent_duplicates=true", &token, Some(&hook)).await;
        assert_eq!((status, &again["uuid"]), (200, &made["uuid"]));
        let hook_uuid = made["uuid"].as_str().unwrap();
        let of_hook = format!("/event-subscriptions?organisation_uuid={org}&webhook_configuration_uuid={hook_uuid}");
        assert_eq!(call(&w, "GET", &of_hook, &token, None).await, (200, json!([])));
        let subscription = json!({"organisation_uuid": org, "action_configuration_uuid": hook_uuid, "action_type": "webhook",
            "event_name": "rnw.event.payment_gateway.payment.succeeded",
            "filter": "event.data[\"payment_method\"] === \"card\""});
        let (status, subscribed) = call(&w, "POST", "/event-subscriptions", &token, Some(&subscription)).await;
        assert_eq!(status, 201, "{subscribed}");
        assert_eq!(subscribed["event_name"], "rnw.event.payment_gateway.payment.succeeded", "kept as sent");
        assert_eq!(subscribed["filter"], subscription["filter"]);
        assert_eq!(subscribed["enabled"], "true");
        assert_eq!(subscribed["action_type"], "webhook");
        let (_, listed) = call(&w, "GET", &of_hook, &token, None).await;
        assert_eq!(listed, json!([subscribed.clone()]));
        // Off: delete the subscription, then the endpoint.
        let path = format!("/event-subscriptions/{}", subscribed["uuid"].as_str().unwrap());
        assert_eq!(call(&w, "DELETE", &path, &token, None).await.0, 204);
        assert_eq!(call(&w, "DELETE", &format!("/webhooks/{hook_uuid}"), &token, None).await.0, 204);
        assert_eq!(call(&w, "GET", &of_hook, &token, None).await, (200, json!([])));
    }

    async fn a_subscription_is_checked_changed_and_goes_with_its_endpoint(backend) {
        let w = notifications_world(backend).await;
        let (org, account, token) = notifications_merchant(&w).await;
        let hook = endpoint(&w, &token, org).await;
        let body = json!({"action_configuration_uuid": hook, "action_type": "webhook",
            "event_name": "coffer.event.subscriptions.invoice.paid", "filter": {"$match": {"data.currency": "CHF"}}});
        let (status, made) = call(&w, "POST", "/event-subscriptions", &token, Some(&body)).await;
        assert_eq!(status, 201, "{made}");
        assert_eq!(made["organisation_uuid"], org.to_string(), "the endpoint's organisation");
        let path = format!("/event-subscriptions/{}", made["uuid"].as_str().unwrap());
        assert_eq!(call(&w, "GET", &path, &token, None).await, (200, made.clone()));

        let (status, changed) = call(&w, "PATCH", &path, &token, Some(&json!({"enabled": false, "account_uuid": account}))).await;
        assert_eq!(status, 200, "{changed}");
        assert_eq!((changed["enabled"].as_str(), changed["filter"].clone()), (Some("false"), body["filter"].clone()));
        let (status, replaced) = call(&w, "PUT", &path, &token, Some(&json!({"action_configuration_uuid": hook, "action_type": "webhook",
            "event_name": "coffer.event.payment_gateway.refund.succeeded"}))).await;
        assert_eq!(status, 200, "{replaced}");
        assert_eq!((replaced["filter"].clone(), replaced["account_uuid"].clone()), (Value::Null, Value::Null));
        assert_eq!(replaced["enabled"], "false", "kept: PUT leaves enabled as it was unless sent");

        // Every bad field named; nothing made.
        let (status, err) = call(&w, "POST", "/event-subscriptions", &token, Some(&json!({"action_configuration_uuid": "x",
            "action_type": "email", "event_name": "coffer.event.payment_gateway.payment.exploded",
            "filter": "require('fs')"}))).await;
        assert_eq!(status, 400, "{err}");
        let properties: Vec<&str> = err["errors"].as_array().unwrap().iter().map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(properties, ["action_configuration_uuid", "action_type", "event_name", "filter"], "{err}");
        let (status, err) = call(&w, "POST", "/event-subscriptions", &token, Some(&json!({"action_configuration_uuid": uuid::Uuid::new_v4(),
            "action_type": "webhook", "event_name": "coffer.event.payment_gateway.payment.succeeded"}))).await;
        assert_eq!(status, 404, "{err}");

        // Another organisation's endpoint cannot be subscribed, nor this one read.
        let other_org = w.organisation("Other").await;
        let other = w.token(other_org).await;
        let (status, _) = call(&w, "POST", "/event-subscriptions", &other, Some(&body)).await;
        assert_eq!(status, 403);
        let (status, _) = call(&w, "POST", "/event-subscriptions", &other, Some(&json!({"organisation_uuid": other_org,
            "action_configuration_uuid": hook, "action_type": "webhook", "event_name": "coffer.event.payment_gateway.payment.succeeded"}))).await;
        assert_eq!(status, 404, "an endpoint of another organisation is none of this one's");
        for (method, b) in [("GET", None), ("PUT", Some(body.clone())), ("PATCH", Some(json!({"enabled": true}))), ("DELETE", None)] {
            assert_eq!(call(&w, method, &path, &other, b.as_ref()).await.0, 403, "{method}");
        }
        assert_eq!(call(&w, "GET", "/event-subscriptions", &other, None).await, (200, json!([])));

        assert_eq!(call(&w, "DELETE", &format!("/webhooks/{hook}"), &token, None).await.0, 204);
        assert_eq!(call(&w, "GET", &path, &token, None).await.0, 404, "gone with its endpoint");
    }
}
