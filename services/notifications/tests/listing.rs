//! An organisation's webhook endpoints through HTTP: as many as its bound allows and no
//! more (400 naming `organisation_uuid`, also for creates at once), and listed whole
//! however many there are, a page only when one is asked for, with bad paging named.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashSet;

use coffer_notifications::NotificationsSettings;
use common::*;
use serde_json::{Value, json};

fn body(org: impl std::fmt::Display, url: &str) -> Value {
    json!({"organisation_uuid": org.to_string(), "endpoint": url})
}

fn bounded(most: usize) -> NotificationsSettings {
    NotificationsSettings {
        max_endpoints_per_organisation: most,
        ..NotificationsSettings::default()
    }
}

/// The `key` of each item of `list`, in its order.
fn each<'a>(list: &'a Value, key: &str) -> Vec<&'a str> {
    let items = list.as_array();
    let items = items.unwrap_or_else(|| panic!("not a list: {list}"));
    items.iter().map(|e| e[key].as_str().unwrap()).collect()
}

/// The uuids of a list's items, in its order.
fn uuids(listed: &Value) -> Vec<String> {
    each(listed, "uuid")
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The uuids a list at `path` answers, in its order.
async fn page_of(w: &World, token: &str, path: String) -> Vec<String> {
    let (status, listed) = call(w, "GET", &path, token, None).await;
    assert_eq!(status, 200, "{path}: {listed}");
    uuids(&listed)
}

/// A 400 in shape B naming exactly `properties`.
fn names(err: &Value, properties: &[&str]) {
    let top = (&err["http_code"], &err["code"]);
    assert_eq!(top, (&json!(400), &json!("bad_request")), "{err}");
    assert_eq!(each(&err["errors"], "property"), properties, "{err}");
}

coffer_testkit::backend_tests! {
    async fn an_organisation_has_as_many_endpoints_as_its_bound_allows_and_no_more(backend) {
        let w = notifications_world_with(backend, bounded(3)).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let mut made = Vec::new();
        for i in 0..3 {
            let (status, hook) = call(&w, "POST", "/webhooks", &token, Some(&body(org, &format!("https://crm.example.org/{i}")))).await;
            assert_eq!(status, 201, "{hook}");
            made.push(hook);
        }
        // Turned off, an endpoint still counts.
        let first = format!("/webhooks/{}", made[0]["uuid"].as_str().unwrap());
        assert_eq!(call(&w, "PATCH", &first, &token, Some(&json!({"enabled": false}))).await.0, 200);
        let (status, err) = call(&w, "POST", "/webhooks", &token, Some(&body(org, "https://crm.example.org/3"))).await;
        assert_eq!(status, 400, "{err}");
        names(&err, &["organisation_uuid"]);
        assert_eq!(err["errors"][0]["code"], "error.validation.not_valid");
        let message = err["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains('3') && message.contains("delete one"), "{message}");
        // An existing endpoint is still answered where a duplicate is to be prevented.
        let (status, again) = call(&w, "POST", "/webhooks?prevent_duplicates=true", &token, Some(&body(org, "https://crm.example.org/1"))).await;
        assert_eq!((status, &again["uuid"]), (200, &made[1]["uuid"]), "{again}");
        let (status, err) = call(&w, "POST", "/webhooks?prevent_duplicates=true", &token, Some(&body(org, "https://crm.example.org/new"))).await;
        assert_eq!(status, 400, "{err}");
        names(&err, &["organisation_uuid"]);
        // The bound is each organisation's own.
        let (other, _, other_token) = notifications_merchant(&w).await;
        assert_eq!(call(&w, "POST", "/webhooks", &other_token, Some(&body(other, "https://crm.example.org/0"))).await.0, 201);

        // One removed, one place is free: of creates at once, one takes it.
        assert_eq!(call(&w, "DELETE", &first, &token, None).await.0, 204);
        let creates = (0..8).map(|i| {
            let hook = body(org, &format!("https://crm.example.org/racing/{i}"));
            let (w, token) = (&w, &token);
            async move { call(w, "POST", "/webhooks", token, Some(&hook)).await }
        });
        let answers = futures_util::future::join_all(creates).await;
        let statuses: Vec<u16> = answers.iter().map(|(status, _)| *status).collect();
        assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{answers:?}");
        assert_eq!(statuses.iter().filter(|s| **s == 400).count(), 7, "{answers:?}");
        let (status, listed) = call(&w, "GET", &format!("/webhooks?organisation_uuid={org}"), &token, None).await;
        assert_eq!((status, uuids(&listed).len()), (200, 3), "{listed}");
    }

    async fn every_endpoint_is_listed_unless_a_page_is_asked_for(backend) {
        // More than the thousand a list used to be cut at.
        const MADE: usize = 1_001;
        let w = notifications_world_with(backend, bounded(MADE)).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let mut made = HashSet::new();
        for i in 0..MADE {
            let (status, hook) = call(&w, "POST", "/webhooks", &token, Some(&body(org, &format!("https://crm.example.org/{i}")))).await;
            assert_eq!(status, 201, "{hook}");
            made.insert(hook["uuid"].as_str().unwrap().to_owned());
        }
        let (status, err) = call(&w, "POST", "/webhooks", &token, Some(&body(org, "https://crm.example.org/one-more"))).await;
        assert_eq!(status, 400, "{err}");

        let (status, listed) = call(&w, "GET", &format!("/webhooks?organisation_uuid={org}"), &token, None).await;
        assert_eq!(status, 200);
        let all = uuids(&listed);
        assert_eq!(all.len(), MADE);
        assert_eq!(all.iter().cloned().collect::<HashSet<_>>(), made, "every endpoint, each once");
        let created: Vec<i64> = listed.as_array().unwrap().iter().map(|e| e["created"].as_i64().unwrap()).collect();
        assert!(created.windows(2).all(|p| p[0] <= p[1]), "oldest first");
        assert_eq!(uuids(&call(&w, "GET", "/webhooks", &token, None).await.1), all, "the caller's, unnamed");
        // Empty values count as left out (the n8n RaiseNow node sends `account_uuid=`).
        let empty = call(&w, "GET", "/webhooks?account_uuid=&organisation_uuid=", &token, None).await;
        assert_eq!((empty.0, uuids(&empty.1)), (200, all.clone()));

        // Pages, in the same order.
        let of_org = format!("/webhooks?organisation_uuid={org}");
        let page = |query: &str| page_of(&w, &token, format!("{of_org}&{query}"));
        assert_eq!(page("size=1000").await, all[..1000]);
        assert_eq!(page("from=1000&size=1000").await, all[1000..]);
        assert_eq!(page("from=10&size=5").await, all[10..15]);
        assert_eq!(page("from=990").await, all[990..], "from alone: every one from there");
        assert_eq!(page("from=5000").await, Vec::<String>::new());
        assert_eq!(page("size=0").await, Vec::<String>::new());

        // Bad paging is named, each parameter once.
        for (query, properties) in [
            ("size=1001", &["size"][..]),
            ("from=-1", &["from"]),
            ("size=", &["size"]),
            ("from=x&size=1.5", &["from", "size"]),
            ("from=4294967296", &["from"]),
        ] {
            let path = format!("/webhooks?organisation_uuid={org}&{query}");
            let (status, err) = call(&w, "GET", &path, &token, None).await;
            assert_eq!(status, 400, "{query}: {err}");
            names(&err, properties);
        }
        let (status, err) = call(&w, "GET", "/webhooks?organisation_uuid=nope&size=x", &token, None).await;
        assert_eq!(status, 400, "{err}");
        names(&err, &["size", "organisation_uuid"]);
    }
}

coffer_testkit::backend_tests! {
    async fn every_subscription_is_listed_unless_a_page_is_asked_for_and_their_number_is_bounded(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        let (status, hook) = call(&w, "POST", "/webhooks", &token, Some(&body(org, "https://crm.example.org/all"))).await;
        assert_eq!(status, 201, "{hook}");
        let subscription = json!({"organisation_uuid": org.to_string(), "action_configuration_uuid": hook["uuid"],
            "action_type": "webhook", "event_name": "rnw.event.payment_gateway.payment.succeeded"});
        // Up to the bound, twenty at a time: past the thousand a list used to be cut at.
        let most = coffer_notifications::subscriptions::domain::bound::MOST as usize;
        let mut made = HashSet::new();
        for _ in 0..most / 20 {
            let creates = (0..20).map(|_| call(&w, "POST", "/event-subscriptions", &token, Some(&subscription)));
            for (status, x) in futures_util::future::join_all(creates).await {
                assert_eq!(status, 201, "{x}");
                made.insert(x["uuid"].as_str().unwrap().to_owned());
            }
        }
        let (status, err) = call(&w, "POST", "/event-subscriptions", &token, Some(&subscription)).await;
        assert_eq!(status, 400, "{err}");
        names(&err, &["organisation_uuid"]);

        let of_org = format!("/event-subscriptions?organisation_uuid={org}");
        let (status, listed) = call(&w, "GET", &of_org, &token, None).await;
        assert_eq!(status, 200);
        let all = uuids(&listed);
        assert_eq!(all.iter().cloned().collect::<HashSet<_>>(), made, "every subscription, each once");
        assert_eq!(all.len(), most);
        let empty = call(&w, "GET", "/event-subscriptions?account_uuid=&webhook_configuration_uuid=", &token, None).await;
        assert_eq!((empty.0, uuids(&empty.1)), (200, all.clone()), "empty values count as left out");
        let page = |query: &str| page_of(&w, &token, format!("{of_org}&{query}"));
        assert_eq!(page("size=1000").await, all[..1000]);
        assert_eq!(page("from=1990").await, all[1990..], "from alone: every one from there");
        assert_eq!(page("from=10&size=5").await, all[10..15]);
        let (status, err) = call(&w, "GET", &format!("{of_org}&from=-1&size=1001"), &token, None).await;
        assert_eq!(status, 400, "{err}");
        names(&err, &["from", "size"]);
    }
}

coffer_testkit::backend_tests! {
    async fn an_endpoint_sent_without_its_organisation_is_the_tokens_one(backend) {
        let w = notifications_world(backend).await;
        let (org, _, token) = notifications_merchant(&w).await;
        // As the n8n RaiseNow node sends it: the endpoint alone.
        let (status, made) = call(&w, "POST", "/webhooks", &token, Some(&json!({"endpoint": "https://crm.example.org/n8n"}))).await;
        assert_eq!(status, 201, "{made}");
        assert_eq!(made["organisation_uuid"], org.to_string());
        let (_, listed) = call(&w, "GET", &format!("/webhooks?organisation_uuid={org}"), &token, None).await;
        assert_eq!(uuids(&listed), [made["uuid"].as_str().unwrap()]);

        // The lists take the same rule (docs/webhooks.md): left out, the token's one
        // organisation; a token reaching several must name it, as SPEC.md requires.
        for list in ["/webhooks", "/event-subscriptions"] {
            let (status, _) = call(&w, "GET", list, &token, None).await;
            assert_eq!(status, 200, "{list}");
            let platform = w.app.platform_token();
            let (status, err) = call(&w, "GET", list, &platform, None).await;
            assert_eq!(status, 400, "{list}: {err}");
            names(&err, &["organisation_uuid"]);
            let (status, err) = call(&w, "GET", &format!("{list}?organisation_uuid=&account_uuid="), &platform, None).await;
            assert_eq!(status, 400, "{list}: {err}");
            names(&err, &["organisation_uuid"]);
            let (status, _) = call(&w, "GET", &format!("{list}?organisation_uuid={org}"), &platform, None).await;
            assert_eq!(status, 200, "{list}: named, the platform lists it");
        }
        let (_, listed) = call(&w, "GET", "/webhooks", &token, None).await;
        assert_eq!(uuids(&listed), [made["uuid"].as_str().unwrap()]);
    }
}
