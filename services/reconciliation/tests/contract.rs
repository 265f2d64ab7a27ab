//! Reconciliation's routes, its API description and the gateway agree; and its lists page
//! through objects made within one second showing each exactly once, in one total order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_model::clock::Clock;
use common::*;
use serde_json::{Value, json};

#[test]
fn every_operation_is_described_routed_and_sent_here_by_the_gateway() {
    coffer_testkit::contract::assert_contract(
        &coffer_reconciliation::api_part(),
        "coffer_reconciliation",
    );
}

/// How many objects of each list the paging test makes, all within one second.
const MADE: usize = 6;

/// Reads `list` (a path with its query) one object a page, until a page is empty; answers
/// the objects in the order the pages showed them.
async fn page_by_page(w: &World, list: &str, token: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    for from in 0..=MADE + 1 {
        let (status, page) = w.get(&format!("{list}&size=1&from={from}"), token).await;
        assert_eq!(status, 200, "{list} from {from}: {page}");
        match page.as_array().unwrap().as_slice() {
            [] => return seen,
            [one] => seen.push(one.clone()),
            more => panic!(
                "{list} from {from}: {} objects on a page of one",
                more.len()
            ),
        }
    }
    panic!("{list} never ended: {seen:?}");
}

/// Each object once, all of `made`, newest first and by uuid among the same second.
fn each_once_in_order(list: &str, shown: &[Value], made: &[String]) {
    let uuids: Vec<String> = shown
        .iter()
        .map(|o| o["uuid"].as_str().unwrap().to_owned())
        .collect();
    let mut expected = made.to_vec();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(uuids, expected, "{list}: each once, by uuid descending");
    let created: Vec<i64> = shown
        .iter()
        .map(|o| o["created"].as_i64().unwrap())
        .collect();
    assert!(
        created.windows(2).all(|w| w[0] == w[1]),
        "{list}: all made within one second, as the test means: {created:?}"
    );
}

coffer_testkit::backend_tests! {
    async fn lists_page_through_objects_of_one_second_showing_each_once(backend) {
        // The test clock stands still: everything below is made in the same second.
        let w = reconciliation_world(backend, None).await;
        let (org, account, token) = w.merchant().await;
        let blueprint = |n: usize| json!({
            "name": format!("Notifications {n}"), "organisation_uuid": org,
            "account_uuid": account, "message_type": "camt.054",
            "processing": "create_direct_debit_payments"});
        let first = create_when_known(&w, "/reconciliation/blueprints", &token, &blueprint(0)).await;
        let mut blueprints = vec![first["uuid"].as_str().unwrap().to_owned()];
        for n in 1..MADE {
            let (status, made, _) = w.post("/reconciliation/blueprints", &token, &blueprint(n), None).await;
            assert_eq!(status, 201, "{made}");
            blueprints.push(made["uuid"].as_str().unwrap().to_owned());
        }
        let mut sources = Vec::new();
        for n in 0..MADE {
            let (status, made, _) = w.post("/reconciliation/sources", &token, &json!({
                "name": format!("Uploads {n}"), "organisation_uuid": org, "account_uuid": account,
                "type": "api_upload", "blueprint_uuid": blueprints[0]}), None).await;
            assert_eq!(status, 201, "{made}");
            sources.push(made["uuid"].as_str().unwrap().to_owned());
        }
        // Several files in one call: one report each, all in the same second.
        let day = w.app.clock.now().date().to_string();
        let mut form = reqwest::multipart::Form::new();
        for n in 0..MADE {
            let file = collected(&format!("PAGE-{n}-{account}"), &format!("E2E-PAGE-{n}"), "5.00", &day);
            form = form.part("filename", reqwest::multipart::Part::bytes(file).file_name(format!("n{n}.xml")));
        }
        let res = w.app.http
            .post(w.app.url(&format!("/reconciliation/blueprints/{}/execute", blueprints[0])))
            .bearer_auth(&token)
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
        let made: Vec<Value> = res.json().await.unwrap();
        assert!(made.iter().all(|r| r["status"] == "processed"), "{made:?}");
        let reports: Vec<String> = made.iter().map(|r| r["uuid"].as_str().unwrap().to_owned()).collect();

        for (list, made) in [
            ("/reconciliation/blueprints", &blueprints),
            ("/reconciliation/sources", &sources),
            ("/reconciliation/reports", &reports),
        ] {
            let shown = page_by_page(&w, &format!("{list}?account_uuid={account}"), &token).await;
            each_once_in_order(list, &shown, made);
            // The same order in one page as page by page.
            let (_, whole) = w.get(&format!("{list}?account_uuid={account}"), &token).await;
            assert_eq!(whole.as_array().unwrap(), &shown, "{list}");
        }
    }
}
