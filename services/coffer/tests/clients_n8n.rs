//! The n8n RaiseNow nodes against `coffer dev`, unchanged: every request they build
//! (tests/clients/n8n_raisenow.json, read from their sources) is sent as n8n sends it
//! (method, path, query, body, headers; only the token and the uuids a run makes filled
//! in), in the order a workflow makes them, and each answer is checked for its status and
//! the fields the workflow reads from it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::replay::{assert_reads, at, send, unread};
use serde_json::Value;

const REQUESTS: &str = include_str!("clients/n8n_raisenow.json");

/// What every operation of the RaiseNow node sends: its requestDefaults and the
/// credential's header (RaiseNow.node.ts, RaiseNowApi.credentials.ts).
const NODE_HEADERS: [(&str, &str); 3] = [
    ("Accept", "application/json"),
    ("Content-Type", "application/json"),
    ("Authorization", "Bearer {token}"),
];

/// Sends one request of the file as n8n builds it: a body as JSON text, the node's
/// headers unless the request lists its own.
async fn replay(base: &str, request: &Value, fill: &[(String, String)]) -> (u16, Value) {
    let headers: Vec<(String, String)> = match request.get("headers") {
        Some(own) => own
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
            .collect(),
        None => NODE_HEADERS
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    };
    let body = request
        .get("body")
        .map(|body| serde_json::to_string(body).unwrap());
    let url = format!("{base}{}", request["path"].as_str().unwrap());
    send(url, request, &headers, body, fill).await
}

#[tokio::test]
async fn the_n8n_nodes_get_what_they_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    // The credential's baseUrl, as a user types it: without a trailing slash.
    let base = c["base_url"]
        .as_str()
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    let token = common::demo_token(&c).await;
    let mut fill: Vec<(String, String)> = vec![
        ("token".into(), token.clone()),
        (
            "organisation_uuid".into(),
            c["organisation_uuid"].as_str().unwrap().into(),
        ),
        (
            "account_uuid".into(),
            c["account_uuids"][0].as_str().unwrap().into(),
        ),
    ];

    let file: Value = serde_json::from_str(REQUESTS).unwrap();
    let mut answers = std::collections::BTreeMap::new();
    for request in file["requests"].as_array().unwrap() {
        let name = request["name"].as_str().unwrap();
        assert!(
            request["comment"]
                .as_str()
                .is_some_and(|c| c.contains(".ts")),
            "{name}: says where in the nodes it was read"
        );
        let (mut status, mut body) = replay(&base, request, &fill).await;
        // A search answers from copies kept from other services' events: asked again until
        // it shows what the workflow made a moment before (the client would see it too).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while request["eventually"] == true
            && unread(request, &body).is_some()
            && std::time::Instant::now() < deadline
        {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            (status, body) = replay(&base, request, &fill).await;
        }
        assert_eq!(
            u64::from(status),
            request["status"].as_u64().unwrap(),
            "{name}: {body}"
        );
        assert_reads(name, request, &body);
        for (saved, path) in request
            .get("save")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let value = at(&body, path.as_str().unwrap()).remove(0);
            fill.push((saved.clone(), value.as_str().unwrap().to_owned()));
        }
        answers.insert(name.to_owned(), body);
    }

    // What the workflows do with the answers, beyond their being there.
    let saved = |name: &str| {
        fill.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(answers["credential test"]["name"], "Coffer");
    assert_eq!(answers["payment: initialize"]["status"], "succeeded");
    assert_eq!(
        answers["payment: initialize with the default profile"]["profile"],
        "card_test"
    );
    assert_eq!(
        answers["payment: initialize with the default profile"]["supporter_uuid"],
        saved("supporter_uuid").as_str()
    );
    assert_eq!(
        answers["payment: initialize, 3-D Secure"]["status"],
        "pending"
    );
    assert_eq!(
        answers["subscription: suspend"]["subscription_status"],
        "suspended"
    );
    assert_eq!(
        answers["subscription: activate"]["subscription_status"],
        "active"
    );
    assert_eq!(
        answers["subscription: cancel"]["subscription_status"],
        "cancelled"
    );
    assert_eq!(
        answers["webhook: create"]["organisation_uuid"],
        saved("organisation_uuid").as_str()
    );
    let listed = answers["webhook: get many"].as_array().unwrap();
    assert!(
        listed
            .iter()
            .any(|w| w["uuid"] == saved("webhook_uuid").as_str())
    );

    // The agreements: the subscription (recurring, on the stored card) is found; the
    // search is eventually consistent with billing's events, so it is asked again until
    // the subscription's change shows.
    let agreements = &answers["search: payment agreements"]["hits"];
    assert!(
        agreements
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["type"] == "recurring" || h["type"] == "one_off"),
        "{agreements}"
    );
    let hinted = &answers["search: payment agreements, as the hint has it"]["hits"];
    assert_eq!(
        hinted[0]["uuid"],
        saved("subscription_uuid").as_str(),
        "{hinted}"
    );
    assert_eq!(hinted[0]["type"], "recurring");
    let kept: Vec<&String> = hinted[0].as_object().unwrap().keys().collect();
    assert!(
        kept.len() <= 4,
        "includes keeps only what was asked: {kept:?}"
    );

    // The trigger's checkExists: every event it subscribed to is listed under the name it
    // sent, so it does not make them again on the next activation.
    let names: Vec<&str> = answers["trigger: check that it exists"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["event_name"].as_str().unwrap())
        .collect();
    for sent in [
        "rnw.event.payment_gateway.payment.succeeded",
        "raisenow.payments.payment.succeeded",
    ] {
        assert!(names.contains(&sent), "{sent} not among {names:?}");
    }
}
