//! The tenant matrix, generated from the API description: objects of every kind are made
//! as one organisation, then every described operation is called on them with a second
//! organisation's token. Each answer is 403 or 404, but for lists and searches scoped to
//! the caller, which answer without the first organisation's objects; no answer carries
//! the first organisation's data, and no write takes effect (its objects read back the
//! same as their owner). An operation added later is covered as soon as it is described;
//! one whose path names an object of a kind without a fixture here fails until one is added.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Client {
    async fn call(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            req = req.json(body);
        }
        let res = req.send().await.unwrap();
        (res.status().as_u16(), res.text().await.unwrap())
    }

    async fn made(&self, path: &str, body: Value) -> Value {
        for _ in 0..100 {
            let (status, text) = self.call("POST", path, Some(&body)).await;
            if status == 201 {
                return serde_json::from_str(&text).unwrap();
            }
            // Billing and payments learn of new objects from events; give them a moment.
            assert!(matches!(status, 404 | 409), "POST {path}: {status} {text}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("POST {path} never succeeded");
    }

    async fn read(&self, path: &str) -> Value {
        let (status, text) = self.call("GET", path, None).await;
        assert_eq!(status, 200, "GET {path}: {text}");
        serde_json::from_str(&text).unwrap()
    }
}

/// A partner's process and the integration its execution made, for the organisation the
/// process brings (a third one, reached only through the partner).
async fn partner_fixtures(a: &Client, dir: &std::path::Path) -> (String, String) {
    let partner = common::admin(
        dir,
        &[
            "partner",
            "create",
            "--name",
            "Matrix Partner",
            "--redirect-uri",
            "https://matrix.example/cb",
        ],
    );
    let configuration = common::admin(
        dir,
        &[
            "onboarding-configuration",
            "create",
            "--partner",
            partner["uuid"].as_str().unwrap(),
            "--account-label",
            "Matrix",
        ],
    );
    let p = Client {
        http: a.http.clone(),
        base: a.base.clone(),
        token: common::token(
            &a.base,
            partner["client_id"].as_str().unwrap(),
            partner["client_secret"].as_str().unwrap(),
        )
        .await,
    };
    let address = json!({"address_line1": "Matrixweg 1", "postal_code": "3000", "city": "Bern", "country": "CH"});
    let process = p
        .made("/partner-onboarding-processes", json!({"external_id": "matrix",
            "onboarding_configuration_uuid": configuration["uuid"],
            "user": {"email": "matrix-partner@example.org", "first_name": "Matrix", "last_name": "Partner"},
            "organisation": {"name": "Matrix Partnered", "main_address": address, "billing_address": address}}))
        .await;
    let execute = format!(
        "/partner-onboarding-processes/tokens/{}/execute",
        process["token"].as_str().unwrap()
    );
    let (status, done) = p.call("POST", &execute, None).await;
    assert_eq!(status, 201, "{done}");
    let integrations = p.read("/partner-integrations").await;
    (
        process["uuid"].as_str().unwrap().to_owned(),
        integrations[0]["uuid"].as_str().unwrap().to_owned(),
    )
}

/// The account's payout (of the payments made above), a blueprint, an upload source, and
/// the report of a statement read with the blueprint.
async fn reconciliation_fixtures(
    a: &Client,
    dir: &std::path::Path,
    org: &str,
    account: &str,
) -> (String, String, String, String) {
    let settled = common::admin(dir, &["payouts", "settle", "--account", account]);
    let payout = settled["payouts"][0]["uuid"].as_str().unwrap().to_owned();
    let blueprint = a
        .made(
            "/reconciliation/blueprints",
            json!({"name": "Matrix A blueprint",
            "organisation_uuid": org, "account_uuid": account,
            "message_type": "camt.053", "processing": "match_settlement_payouts"}),
        )
        .await;
    let blueprint = blueprint["uuid"].as_str().unwrap().to_owned();
    let source = a
        .made(
            "/reconciliation/sources",
            json!({"name": "Matrix A bank",
            "organisation_uuid": org, "account_uuid": account, "type": "api_upload",
            "blueprint_uuid": blueprint}),
        )
        .await;
    let statement = "<?xml version=\"1.0\"?><Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.04\">\
        <BkToCstmrStmt><GrpHdr><MsgId>MATRIX-A-STATEMENT</MsgId></GrpHdr><Stmt><Id>S</Id>\
        <Acct><Id><IBAN>CH9300762011623852957</IBAN></Id></Acct></Stmt></BkToCstmrStmt></Document>";
    let form = reqwest::multipart::Form::new().part(
        "filename",
        reqwest::multipart::Part::bytes(statement.as_bytes().to_vec()).file_name("matrix.xml"),
    );
    let res = a
        .http
        .post(format!(
            "{}/reconciliation/blueprints/{blueprint}/execute",
            a.base
        ))
        .bearer_auth(&a.token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let report: Value = res.json().await.unwrap();
    (
        payout,
        blueprint,
        source["uuid"].as_str().unwrap().to_owned(),
        report["uuid"].as_str().unwrap().to_owned(),
    )
}

/// The first organisation's objects, by the path parameter that names each kind.
async fn fixtures(
    a: &Client,
    c: &Value,
    dir: &std::path::Path,
) -> (BTreeMap<&'static str, String>, Vec<String>) {
    let (process, integration) = partner_fixtures(a, dir).await;
    let org = c["organisation_uuid"].as_str().unwrap().to_owned();
    let account = c["account_uuids"][0].as_str().unwrap().to_owned();
    let addresses = a.read(&format!("/organisations/{org}/addresses")).await;
    let address = addresses[0]["uuid"]
        .as_str()
        .expect("the demo has an address")
        .to_owned();
    let card = json!({"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"});
    let supporter = a
        .made("/supporters", json!({"organisation_uuid": org, "first_name": "Matrixa", "email": "matrix-a@example.org"}))
        .await;
    let payment = a
        .made("/payments", json!({"account_uuid": account, "payment_method": "card",
            "amount": {"value": "1234", "currency": "CHF"}, "payment_information": card,
            "supporter": {"uuid": supporter["uuid"]}, "custom_parameters": {"secret": "matrix-a-secret"}}))
        .await;
    let source = a
        .made(
            "/payment-sources",
            json!({"account_uuid": account, "payment_method": "card",
            "amount": {"value": "1234", "currency": "CHF"}, "payment_information": card,
            "supporter": {"uuid": supporter["uuid"]}}),
        )
        .await;
    let plan = a
        .made(
            "/subscription-plans",
            json!({"organisation_uuid": org, "name": "Matrix A plan"}),
        )
        .await;
    let subscription = a
        .made("/subscriptions", json!({"account_uuid": account, "payment_source_uuid": source["uuid"],
            "supporter_uuid": supporter["uuid"], "subscription_plan_uuid": plan["uuid"], "test_mode": true,
            "currency": "CHF", "amount": 1234, "recurring_interval": "monthly", "status": "active",
            "custom_parameters": {"secret": "matrix-a-secret"}}))
        .await;
    let invoice = a
        .made(
            &format!(
                "/subscriptions/{}/invoices",
                subscription["uuid"].as_str().unwrap()
            ),
            json!({}),
        )
        .await;
    let clock = a
        .made("/test-clocks", json!({"frozen_time": 1798761600}))
        .await;
    let webhook = a
        .made(
            "/webhooks",
            json!({"organisation_uuid": org, "alias": "Matrix A hook",
            "endpoint": "https://matrix-a.example.org/hooks", "username": "matrix-a-user",
            "password": "matrix-a-password"}),
        )
        .await;
    let subscribed = a
        .made("/event-subscriptions", json!({"action_configuration_uuid": webhook["uuid"],
            "action_type": "webhook", "event_name": "coffer.event.payment_gateway.payment.succeeded",
            "filter": {"$match": {"data.custom_parameters.secret": "matrix-a-secret"}}}))
        .await;
    // A payment the subscription is owed: its delivery to a name that does not resolve
    // here fails, and the try is logged.
    a.made(
        "/payments",
        json!({"account_uuid": c["account_uuids"][0], "payment_method": "card",
        "amount": {"value": "1234", "currency": "CHF"}, "payment_information": card,
        "custom_parameters": {"secret": "matrix-a-secret"}}),
    )
    .await;
    let tried = answered_try(a, &org).await;
    let (payout, blueprint, bank_source, report) =
        reconciliation_fixtures(a, dir, &org, &account).await;
    let id = |v: &Value| v["uuid"].as_str().unwrap().to_owned();
    let kinds = BTreeMap::from([
        ("organisation_uuid", org.clone()),
        ("account_uuid", account),
        ("address_uuid", address),
        ("supporter_uuid", id(&supporter)),
        ("payment_uuid", id(&payment)),
        ("payment_source_uuid", id(&source)),
        ("plan_uuid", id(&plan)),
        ("subscription_uuid", id(&subscription)),
        ("invoice_uuid", id(&invoice)),
        ("test_clock_uuid", id(&clock)),
        ("webhook_uuid", id(&webhook)),
        ("event_subscription_uuid", id(&subscribed)),
        ("webhook_response_uuid", tried),
        ("uuid", process),
        ("partner_integration_uuid", integration),
        ("email", "matrix-partner@example.org".to_owned()),
        ("payout_uuid", payout),
        ("blueprint_uuid", blueprint),
        ("source_uuid", bank_source),
        ("report_uuid", report),
    ]);
    // What nobody else may read: the names, addresses and parameters behind those ids.
    let secrets = vec![
        "Coffer Demo Foundation".to_owned(),
        "Matrixa".to_owned(),
        "matrix-a@example.org".to_owned(),
        "matrix-a-secret".to_owned(),
        "Matrix A plan".to_owned(),
        "matrix-a.example.org".to_owned(),
        "matrix-a-user".to_owned(),
        "matrix-a-password".to_owned(),
        "Matrix A blueprint".to_owned(),
        "Matrix A bank".to_owned(),
        "MATRIX-A-STATEMENT".to_owned(),
        webhook["hmac_key"].as_str().unwrap().to_owned(),
        addresses[0]["address_line1"].as_str().unwrap().to_owned(),
    ];
    (kinds, secrets)
}

/// The organisation's first logged delivery try, once its answer (here a failure to
/// resolve the endpoint's name) is recorded.
async fn answered_try(a: &Client, org: &str) -> String {
    for _ in 0..200 {
        let tries = a
            .read(&format!("/webhook-responses?organisation_uuid={org}"))
            .await;
        if let Some(first) = tries.as_array().and_then(|t| t.last()) {
            let uuid = first["uuid"].as_str().unwrap().to_owned();
            let entry = a.read(&format!("/webhook-responses/{uuid}")).await;
            if !entry["error_message"]
                .as_str()
                .unwrap_or_default()
                .starts_with("no answer was recorded")
            {
                return uuid;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no delivery try of {org} was logged with its answer");
}

/// Every readable object of the first organisation, as its owner sees it.
async fn snapshot(a: &Client, kinds: &BTreeMap<&str, String>) -> BTreeMap<String, Value> {
    let k = |name: &str| kinds[name].clone();
    let mut seen = BTreeMap::new();
    for path in [
        format!("/organisations/{}", k("organisation_uuid")),
        format!("/organisations/{}/metadata", k("organisation_uuid")),
        format!("/accounts/{}", k("account_uuid")),
        format!("/accounts/{}/billing-data", k("account_uuid")),
        format!("/supporters/{}", k("supporter_uuid")),
        format!("/payments/{}", k("payment_uuid")),
        format!("/payment-sources/{}", k("payment_source_uuid")),
        format!("/subscription-plans/{}", k("plan_uuid")),
        format!("/subscriptions/{}", k("subscription_uuid")),
        format!(
            "/subscriptions/{}/invoices/{}",
            k("subscription_uuid"),
            k("invoice_uuid")
        ),
        format!("/test-clocks/{}", k("test_clock_uuid")),
        format!("/webhooks/{}", k("webhook_uuid")),
        format!("/event-subscriptions/{}", k("event_subscription_uuid")),
        format!("/webhook-responses/{}", k("webhook_response_uuid")),
        format!("/payouts/{}", k("payout_uuid")),
        format!("/reconciliation/blueprints/{}", k("blueprint_uuid")),
        format!("/reconciliation/sources/{}", k("source_uuid")),
        format!("/reconciliation/reports/{}", k("report_uuid")),
    ] {
        let body = a.read(&path).await;
        seen.insert(path, body);
    }
    seen
}

/// The request body a described operation shows, pointed at the first organisation.
fn body_of(op: &Value, described: &Value, kinds: &BTreeMap<&str, String>) -> Option<Value> {
    let content = &op["requestBody"]["content"]["application/json"];
    let mut example = content["example"].clone();
    if example.is_null() {
        // The example of the body's type, when the operation shows none of its own.
        let schema = &content["schema"];
        let named = schema["$ref"]
            .as_str()
            .or_else(|| schema["oneOf"][1]["$ref"].as_str())
            .and_then(|r| r.rsplit('/').next());
        if let Some(name) = named {
            example = described["components"]["schemas"][name]["example"].clone();
        }
    }
    let mut body = if example.is_null() {
        json!({})
    } else {
        example
    };
    if let Some(fields) = body.as_object_mut() {
        for (field, kind) in [
            ("organisation_uuid", "organisation_uuid"),
            ("account_uuid", "account_uuid"),
            ("supporter_uuid", "supporter_uuid"),
            ("payment_source_uuid", "payment_source_uuid"),
            ("subscription_plan_uuid", "plan_uuid"),
            ("action_configuration_uuid", "webhook_uuid"),
        ] {
            if fields.contains_key(field) {
                fields.insert(field.to_owned(), json!(kinds[kind]));
            }
        }
    }
    op.get("requestBody").map(|_| body)
}

#[tokio::test]
async fn another_tenant_gets_nothing_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let base = c["base_url"].as_str().unwrap().to_owned();
    let http = reqwest::Client::new();
    let a = Client {
        http: http.clone(),
        base: base.clone(),
        token: common::demo_token(&c).await,
    };
    let second = common::admin(
        dir.path(),
        &["organisation", "create", "--name", "Matrix B"],
    );
    let second = second["uuid"].as_str().unwrap();
    let client = common::admin(dir.path(), &["client", "create", "--organisation", second]);
    let b_token = common::token(
        &base,
        client["client_id"].as_str().unwrap(),
        client["client_secret"].as_str().unwrap(),
    )
    .await;
    let b = Client {
        http,
        base: base.clone(),
        token: b_token,
    };

    let (kinds, secrets) = fixtures(&a, &c, dir.path()).await;
    let before = snapshot(&a, &kinds).await;
    let described: Value = a.read("/openapi.json").await;
    let mut tried = 0;
    for (template, item) in described["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op["security"].as_array().is_some_and(Vec::is_empty) {
                continue; // public: the token endpoint and the signing keys
            }
            let mut path = template.clone();
            let mut names_an_object = false;
            for param in op["parameters"].as_array().into_iter().flatten() {
                if param["in"] != "path" {
                    continue;
                }
                let name = param["name"].as_str().unwrap();
                let id = kinds.get(name).unwrap_or_else(|| {
                    panic!("{method} {template}: add a fixture for {name} to this test")
                });
                path = path.replace(&format!("{{{name}}}"), id);
                names_an_object = true;
            }
            let body = body_of(op, &described, &kinds);
            let names_in_body = body
                .as_ref()
                .is_some_and(|b| kinds.values().any(|id| b.to_string().contains(id.as_str())));
            let (status, text) = b.call(&method.to_uppercase(), &path, body.as_ref()).await;
            let what = format!("{} {path} as another tenant", method.to_uppercase());
            let reads = method == "get" || template.starts_with("/search/");
            if names_an_object || names_in_body {
                assert!(matches!(status, 403 | 404), "{what}: {status} {text}");
            } else if reads {
                assert_eq!(status, 200, "{what}: the caller's own, however few: {text}");
            } else {
                assert!(status < 500, "{what}: {status} {text}");
            }
            for secret in &secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "{what} shows {secret:?}: {text}"
                );
            }
            let sent = format!(
                "{path} {}",
                body.as_ref().map(Value::to_string).unwrap_or_default()
            );
            for id in kinds.values() {
                assert!(
                    sent.contains(id.as_str()) || !text.contains(id.as_str()),
                    "{what} shows {id}, which it was not given: {text}"
                );
            }
            tried += 1;
            eprintln!("{what}: {status}");
        }
    }
    assert!(tried >= 49, "only {tried} operations tried");
    let after = snapshot(&a, &kinds).await;
    for (path, was) in &before {
        assert_eq!(
            &after[path], was,
            "{path} changed under another tenant's calls"
        );
    }
}
