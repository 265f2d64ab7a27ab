//! The `coffer` binary as a new user meets it: `coffer dev` on a fresh data directory, the
//! README walk-through, `coffer admin` beside the running server, and a restart.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::*;
use serde_json::Value;

#[tokio::test]
async fn dev_serves_the_walkthrough_and_admin_adds_a_second_tenant() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = start(&data);
    let c = credentials(&data, &mut server).await;
    let base = c["base_url"].as_str().unwrap();
    let org = c["organisation_uuid"].as_str().unwrap();
    assert_eq!(c["account_uuids"].as_array().unwrap().len(), 2);

    // README walk-through: a token, then the organisation.
    let t = token(
        base,
        c["client_id"].as_str().unwrap(),
        c["client_secret"].as_str().unwrap(),
    )
    .await;
    let (status, body) = get(base, &format!("/organisations/{org}"), &t).await;
    assert_eq!(status, 200);
    assert_eq!(body["name"], "Coffer Demo Foundation");
    assert_eq!(body["accounts"].as_array().unwrap().len(), 2);
    let account = c["account_uuids"][0].as_str().unwrap();
    let (status, billing) = get(base, &format!("/accounts/{account}/billing-data"), &t).await;
    assert_eq!(status, 200);
    assert_eq!(billing["organisation_name"], "Coffer Demo Foundation");
    let (status, addresses) = get(base, &format!("/organisations/{org}/addresses"), &t).await;
    assert_eq!(status, 200);
    assert_eq!(addresses.as_array().unwrap().len(), 1);

    // Payments serves from the same port, and knows the demo organisation from identity's
    // events (the replica fills in the background, so allow it a moment).
    let mut created = None;
    // Bounded wait, generous for a loaded machine: the replica fills within a poll or two.
    for _ in 0..400 {
        let res = reqwest::Client::new()
            .post(format!("{base}/supporters"))
            .bearer_auth(&t)
            .json(&serde_json::json!({"organisation_uuid": org, "first_name": "Grace", "email": "grace@example.org"}))
            .send()
            .await
            .unwrap();
        if res.status() == 201 {
            created = Some(res.json::<Value>().await.unwrap());
            break;
        }
        assert_eq!(
            res.status(),
            404,
            "only a replica not yet filled may refuse"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let supporter = created.expect("payments learnt of the demo organisation");
    let (status, fetched) = get(
        base,
        &format!("/supporters/{}", supporter["uuid"].as_str().unwrap()),
        &t,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(fetched["email"], "grace@example.org");

    // A second tenant, made while the server runs.
    let second = admin(
        &data,
        &[
            "organisation",
            "create",
            "--name",
            "Second Org",
            "--locale",
            "fr_CH",
        ],
    );
    let second_uuid = second["uuid"].as_str().unwrap();
    assert_eq!(second["locale"], "fr_CH");
    let account2 = admin(
        &data,
        &[
            "account",
            "create",
            "--organisation",
            second_uuid,
            "--name",
            "Main",
        ],
    );
    assert_eq!(account2["organisation"]["uuid"], second_uuid);
    let billing = admin(
        &data,
        &[
            "billing-data",
            "set",
            "--account",
            account2["uuid"].as_str().unwrap(),
            "--account-holder",
            "Second Org",
            "--iban",
            "CH93 0076 2011 6238 5295 7",
            "--email",
            "books@second.example",
            "--line1",
            "Rue 1",
            "--postal-code",
            "1003",
            "--city",
            "Lausanne",
            "--country",
            "CH",
        ],
    );
    assert_eq!(billing["iban"], "CH9300762011623852957");
    assert_eq!(billing["organisation_name"], "Second Org");
    let client = admin(&data, &["client", "create", "--organisation", second_uuid]);
    let t2 = token(
        base,
        client["client_id"].as_str().unwrap(),
        client["client_secret"].as_str().unwrap(),
    )
    .await;
    let (status, own) = get(base, &format!("/organisations/{second_uuid}"), &t2).await;
    let (_, served) = get(
        base,
        &format!(
            "/accounts/{}/billing-data",
            account2["uuid"].as_str().unwrap()
        ),
        &t2,
    )
    .await;
    assert_eq!(served, billing);
    assert_eq!(status, 200);
    assert_eq!(own["accounts"][0]["uuid"], account2["uuid"]);
    for path in [
        format!("/organisations/{org}"),
        format!("/accounts/{account}"),
        format!("/accounts/{account}/billing-data"),
    ] {
        let (status, body) = get(base, &path, &t2).await;
        assert_eq!(status, 403, "{path}");
        assert!(body.get("name").is_none(), "no data on 403");
    }
}

#[tokio::test]
async fn a_restart_keeps_data_and_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let first = {
        let mut server = start(&data);
        credentials(&data, &mut server).await
    };
    let mut server = start(&data);
    let again = credentials(&data, &mut server).await;
    assert_eq!(first["client_id"], again["client_id"]);
    assert_eq!(first["organisation_uuid"], again["organisation_uuid"]);
    let base = again["base_url"].as_str().unwrap();
    let t = token(
        base,
        again["client_id"].as_str().unwrap(),
        again["client_secret"].as_str().unwrap(),
    )
    .await;
    let (status, list) = get(base, "/organisations", &t).await;
    assert_eq!(status, 200);
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "no second demo organisation"
    );
}

#[test]
fn admin_reports_invalid_input_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(COFFER)
        .args(["admin", "--data-dir"])
        .arg(dir.path())
        .args(["organisation", "create", "--name", "X", "--locale", "de-CH"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("locale"), "{err}");
}
