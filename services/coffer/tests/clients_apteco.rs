//! Apteco's RaiseNow plugin against `coffer dev`, unchanged: every request it builds
//! (tests/clients/apteco_raisenow.json, read from its sources) is sent as it sends it
//! (method, path, query, body, headers; only the token, the client's credentials and a
//! payment's uuid filled in), over payments made through the API, and each answer is
//! checked for the fields the plugin reads from it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::replay::{assert_reads, send};
use serde_json::{Value, json};

const REQUESTS: &str = include_str!("clients/apteco_raisenow.json");

/// The demo organisation's first account gets three card payments: two that succeed (one
/// with a supporter made beside it) and one declined.
async fn pay(base: &str, token: &str, account: &str) -> Vec<String> {
    let http = reqwest::Client::new();
    let mut made = Vec::new();
    for (number, value, supporter) in [
        ("4242424242424242", "500", true),
        ("4242424242424242", "1500", false),
        ("4000000000000002", "700", false),
    ] {
        let mut body = json!({"account_uuid": account, "payment_method": "card",
            "amount": {"value": value, "currency": "CHF"},
            "payment_information": {"number": number, "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}});
        if supporter {
            body["create_supporter"] = json!(true);
            body["supporter"] =
                json!({"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org"});
        }
        let res = http
            .post(format!("{base}/payments"))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
        let paid: Value = res.json().await.unwrap();
        made.push(paid["uuid"].as_str().unwrap().to_owned());
    }
    made
}

/// Sends one request of the file as the plugin builds it.
async fn replay(base: &str, request: &Value, fill: &[(String, String)]) -> (u16, Value) {
    // PowerShell sends a User-Agent of its own; the plugin sets none.
    let mut headers = vec![(
        "User-Agent".to_owned(),
        "Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.22631; en-US) PowerShell/7.4.5"
            .to_owned(),
    )];
    headers.extend(
        request["headers"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned())),
    );
    let body = request.get("body").map(|body| {
        if request["compress"] == true {
            serde_json::to_string(body).unwrap()
        } else {
            serde_json::to_string_pretty(body).unwrap()
        }
    });
    // The plugin's base ends in a slash and its objects start without one.
    let url = format!("{base}/{}", request["path"].as_str().unwrap());
    send(url, request, &headers, body, fill).await
}

#[tokio::test]
async fn the_plugin_reads_what_it_expects() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let base = c["base_url"]
        .as_str()
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    let token = common::demo_token(&c).await;
    let account = c["account_uuids"][0].as_str().unwrap().to_owned();
    let paid = pay(&base, &token, &account).await;

    let file: Value = serde_json::from_str(REQUESTS).unwrap();
    let requests = file["requests"].as_array().unwrap();
    let fill: Vec<(String, String)> = [
        ("token", token.as_str()),
        ("client_id", c["client_id"].as_str().unwrap()),
        ("client_secret", c["client_secret"].as_str().unwrap()),
        ("payment_uuid", paid[0].as_str()),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    let mut answers = std::collections::BTreeMap::new();
    for request in requests {
        let name = request["name"].as_str().unwrap();
        assert!(
            request["comment"]
                .as_str()
                .is_some_and(|c| c.contains(".ps1") || c.contains(".md")),
            "{name}: says where in the plugin it was read"
        );
        let (status, body) = replay(&base, request, &fill).await;
        assert_eq!(status, 200, "{name}: {body}");
        assert_reads(name, request, &body);
        answers.insert(name.to_owned(), body);
    }

    // What the plugin does with the answers, beyond their being there.
    assert!(
        answers["token"]["expires_in"].as_i64().unwrap() > 0,
        "[int]$newToken.expires_in"
    );
    let listed = &answers["Get-Payment"];
    assert_eq!(listed["summary"]["hits"], 3);
    let hits = listed["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    let created: Vec<i64> = hits
        .iter()
        .map(|h| h["created"].as_i64().unwrap())
        .collect();
    assert!(created.is_sorted(), "ascending by created: {created:?}");
    assert!(hits.iter().all(|h| h.get("charged_by").is_none()));
    assert_eq!(listed["summary"]["last_sort_values"][1], hits[2]["uuid"]);
    assert_eq!(
        answers["Get-Payment -FromUnixtime 1726049866"]["summary"]["hits"],
        3
    );
    let kept = &answers["Get-Payment -Include uuid, created, amount"]["hits"][0];
    let mut keys: Vec<&String> = kept.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["amount", "created", "uuid"]);
    assert_eq!(answers["Get-Payment -Uuid"]["uuid"], paid[0].as_str());
    assert_eq!(answers["notes: get a donation"]["uuid"], paid[0].as_str());
    assert_eq!(
        answers["notes: list donations by creation date"]["summary"]["hits"],
        3
    );
    let count = &answers["notes: count donations after a timestamp"];
    assert_eq!(count["summary"]["hits"], 3);
    assert_eq!(count["hits"], json!([]));
    assert_eq!(
        count["aggregations"]["maxtimestamp"],
        json!([{"key": "1700000000-*", "from": 1_700_000_000, "doc_count": 3}])
    );
    assert!(!answers["Get-Supporter"].as_array().unwrap().is_empty());
    assert!(
        answers["Get-Account"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["uuid"] == account.as_str())
    );
}
