//! What the README's prose promises of each block, and the two browser steps the test
//! makes by posting their forms.

use serde_json::Value;

use crate::blocks::Block;
use crate::common::{self, browser};
use crate::dev::Api;
use crate::shell::Shell;

pub(crate) const EMAIL: &str = "ann@alpine-aid.example";
pub(crate) const PASSWORD: &str = "correct horse battery";

/// The browser step of the 3-D Secure card: open action.url, press Approve, land on
/// return_url; the payment has succeeded.
pub(crate) async fn approve(shell: &mut Shell, asked: &Value) {
    assert_eq!(asked["status"], "pending", "{asked}");
    let url = asked["action"]["url"].as_str().expect("action.url");
    let page = browser::open(url).await;
    let answer = page.submit(&page.form(">Approve<"), &[]).await;
    let landed = browser::location(&answer);
    assert!(
        landed.as_str().starts_with("https://example.org/thanks"),
        "{landed}"
    );
    let api = Api::of(shell, "TOKEN");
    let uuid = asked["uuid"].as_str().unwrap();
    api.until(&format!("/payments/{uuid}"), |p| p["status"] == "succeeded")
        .await;
}

/// The browser step of single sign-on: open the address the block printed, sign in as
/// Ann, and the code from where the browser lands.
pub(crate) async fn sign_in(printed: &[String]) -> String {
    let url = printed
        .iter()
        .rev()
        .find(|l| l.contains("/oauth2/authorize?"))
        .expect("the block prints the authorize address");
    let page = browser::open(url).await;
    let form = page.form("name=\"password\"");
    let answer = page
        .submit(&form, &[("email", EMAIL), ("password", PASSWORD)])
        .await;
    let landed = browser::location(&answer);
    assert!(
        landed
            .as_str()
            .starts_with("http://127.0.0.1:9000/callback?"),
        "{landed}"
    );
    let query: std::collections::HashMap<_, _> = landed.query_pairs().into_owned().collect();
    assert_eq!(query.get("state").map(String::as_str), Some("xyz"));
    query["code"].clone()
}

/// What the prose promises of a block's outcome.
pub(crate) async fn check(block: Block, shell: &mut Shell, values: &[Value]) {
    let json: Vec<&Value> = values.iter().filter(|v| !v.is_string()).collect();
    for v in &json {
        // An error body in any of docs/errors.md's shapes.
        let only_message = v
            .as_object()
            .is_some_and(|o| o.len() == 1 && o.contains_key("message"));
        let error =
            v["error"].is_object() || v.get("errors").is_some() || v.get("http_code").is_some();
        assert!(!error && !only_message, "{block:?} printed an error: {v}");
    }
    match block {
        Block::Start | Block::WebhookRestart | Block::Partner | Block::Blueprint => {}
        Block::FirstCalls => {
            let org = shell.var("ORG");
            assert_eq!(
                json[0]["uuid"],
                org.as_str(),
                "the organisation: {}",
                json[0]
            );
            assert_eq!(
                json[1].as_array().map(Vec::len),
                Some(2),
                "two accounts: {}",
                json[1]
            );
            assert!(json[2]["iban"].is_string(), "the billing data: {}", json[2]);
        }
        Block::Donations => {
            assert_eq!(json[0]["status"], "succeeded", "{}", json[0]);
            assert_eq!(json[1]["amount"]["value"], "300", "the refund: {}", json[1]);
            approve(shell, json[2]).await;
        }
        Block::Search => {
            let buckets = &json[0]["aggregations"]["methods"];
            assert!(
                buckets
                    .as_array()
                    .is_some_and(|b| b.iter().any(|b| b["key"] == "card")),
                "a count of card payments: {}",
                json[0]
            );
        }
        Block::MonthlyGiving => {
            assert_eq!(json[0]["status"], "advancing", "{}", json[0]);
            assert_eq!(json[1]["status"], "ready", "{}", json[1]);
            let invoices = json[2].as_array().expect("the invoices");
            assert_eq!(invoices.len(), 4, "four invoices: {}", json[2]);
            assert!(
                invoices.iter().all(|i| i["status"] == "paid"),
                "all paid: {}",
                json[2]
            );
            assert_eq!(json[3]["subscription_status"], "active", "{}", json[3]);
        }
        Block::Webhooks => {
            assert_eq!(json[0]["enabled"], "true", "the subscription: {}", json[0]);
            assert!(
                values.contains(&Value::String("verified".into())),
                "{values:?}"
            );
            let org = shell.var("ORG");
            let api = Api::of(shell, "TOKEN");
            // The try the receiver answered is logged with its answer.
            api.until(
                &format!("/webhook-responses?organisation_uuid={org}"),
                |tries| tries[0]["status_code"] == 200,
            )
            .await;
        }
        Block::Onboarding => {
            assert_eq!(values[0], Value::from(404), "no user yet: {values:?}");
            assert_eq!(json[1]["status"], "completed", "the execution: {}", json[1]);
        }
        Block::PartnerReads => {
            assert_eq!(json[0]["name"], "Alpine Aid", "{}", json[0]);
        }
        Block::SingleSignOn => {
            assert_eq!(json[0]["email"], EMAIL, "the ID token: {}", json[0]);
        }
        Block::Upload => {
            assert_eq!(values, [Value::from(204)], "the store answers 204");
        }
        Block::Report => {
            let report = json[0];
            assert_eq!(report["status"], "processed", "{report}");
            let created = report["created"].as_array().expect("created entries");
            assert_eq!(created.len(), 1, "{report}");
            // The collection Coffer did not start is recorded as a payment.
            let debit = created[0]["debit_uuid"].as_str().expect("debit_uuid");
            let api = Api::of(shell, "TOKEN");
            let paid = api
                .until(&format!("/payments/{debit}"), |p| {
                    p["status"] == "succeeded"
                })
                .await;
            assert_eq!(paid["payment_method"], "sepa_dd", "{paid}");
        }
        Block::Stripe => {
            let paid = json.last().expect("the payment");
            assert_eq!(paid["status"], "succeeded", "{paid}");
            assert_eq!(paid["payment_provider"], "stripe", "{paid}");
            assert!(
                paid["provider_payment_id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("pi_")),
                "{paid}"
            );
            let profile = &json[json.len() - 2];
            assert_eq!(profile["test_mode"], true, "{profile}");
        }
        Block::Operators => {
            let client = json.last().expect("the client");
            let base = shell.var("BASE");
            let token = common::token(
                &base,
                client["client_id"].as_str().unwrap(),
                client["client_secret"].as_str().unwrap(),
            )
            .await;
            let org = shell.var("ORG");
            let (status, body) = common::get(&base, &format!("/organisations/{org}"), &token).await;
            assert_eq!(
                status, 403,
                "the second organisation reads the first: {body}"
            );
        }
    }
}
