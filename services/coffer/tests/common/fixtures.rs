//! Objects of every kind, made through the API as one organisation (and its partner), for
//! the tests generated from the API description (the tenant matrix, the Idempotency-Key
//! check), and the request body each described operation shows.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

/// A caller of the API: one organisation's, a partner's or the platform's.
#[derive(Clone)]
pub struct Client {
    pub http: reqwest::Client,
    pub base: String,
    pub token: String,
}

impl Client {
    /// The demo organisation's client, from `credentials.json`.
    pub async fn demo(c: &Value) -> Client {
        Client {
            http: reqwest::Client::new(),
            base: c["base_url"].as_str().unwrap().to_owned(),
            token: super::demo_token(c).await,
        }
    }

    /// A client `coffer admin client create <access>` makes, beside `self`.
    pub async fn made_by_admin(&self, dir: &std::path::Path, access: &[&str]) -> Client {
        let args: Vec<&str> = ["client", "create"].iter().chain(access).copied().collect();
        let made = super::admin(dir, &args);
        Client {
            http: self.http.clone(),
            base: self.base.clone(),
            token: super::token(
                &self.base,
                made["client_id"].as_str().unwrap(),
                made["client_secret"].as_str().unwrap(),
            )
            .await,
        }
    }

    pub async fn call(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
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

    pub async fn made(&self, path: &str, body: Value) -> Value {
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

    pub async fn read(&self, path: &str) -> Value {
        let (status, text) = self.call("GET", path, None).await;
        assert_eq!(status, 200, "GET {path}: {text}");
        serde_json::from_str(&text).unwrap()
    }
}

/// An empty camt.053 statement of the demo's first account, named by `message_id`, as the
/// multipart form the deprecated execute operation takes.
pub fn statement_form(message_id: &str) -> reqwest::multipart::Form {
    let statement = format!(
        "<?xml version=\"1.0\"?><Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.04\">\
        <BkToCstmrStmt><GrpHdr><MsgId>{message_id}</MsgId></GrpHdr><Stmt><Id>S</Id>\
        <Acct><Id><IBAN>CH9300762011623852957</IBAN></Id></Acct></Stmt></BkToCstmrStmt></Document>"
    );
    reqwest::multipart::Form::new().part(
        "filename",
        reqwest::multipart::Part::bytes(statement.into_bytes()).file_name("statement.xml"),
    )
}

/// A partner's process and the integration its execution made, for the organisation the
/// process brings (a third one, reached only through the partner), and the partner.
async fn partner_fixtures(a: &Client, dir: &std::path::Path) -> (String, String, String, Client) {
    let partner = super::admin(
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
    let configuration = super::admin(
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
        token: super::token(
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
        configuration["uuid"].as_str().unwrap().to_owned(),
        p,
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
    let settled = super::admin(dir, &["payouts", "settle", "--account", account]);
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
    let form = statement_form("MATRIX-A-STATEMENT");
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

/// Objects of every kind, made as the first organisation (and its partner).
pub struct Fixtures {
    /// The first organisation's objects, by the path parameter that names each kind.
    pub kinds: BTreeMap<&'static str, String>,
    /// What nobody else may read: the names, addresses and parameters behind those ids.
    pub secrets: Vec<String>,
    /// The partner that brought a third organisation through an onboarding process.
    pub partner: Client,
}

pub async fn fixtures(a: &Client, c: &Value, dir: &std::path::Path) -> Fixtures {
    let (process, integration, configuration, partner) = partner_fixtures(a, dir).await;
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
        ("configuration_uuid", configuration),
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
    Fixtures {
        kinds,
        secrets,
        partner,
    }
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

/// The request body a described operation shows, pointed at the first organisation.
pub fn body_of(op: &Value, described: &Value, kinds: &BTreeMap<&str, String>) -> Option<Value> {
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
            ("onboarding_configuration_uuid", "configuration_uuid"),
            ("blueprint_uuid", "blueprint_uuid"),
        ] {
            if fields.contains_key(field) {
                fields.insert(field.to_owned(), json!(kinds[kind]));
            }
        }
    }
    op.get("requestBody").map(|_| body)
}
