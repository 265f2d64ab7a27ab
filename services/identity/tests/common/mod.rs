//! Identity under test: a running service with two tenants in it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;

use coffer_http::Module;
use coffer_identity::admin::{Admin, ClientAccess, NewClient};
use coffer_identity::domain::directory::{AddressInput, BillingInput, OrganisationInput};
use coffer_identity::keys::KeyringError;
pub use coffer_identity::tokens::ThrottleSettings;
use coffer_identity::{Identity, IdentitySettings, MIGRATIONS};
pub use coffer_secrets::Secrets;
pub use coffer_testkit::{Backend, Harness, ServerOptions, TestApp};
use serde_json::Value;
use uuid::Uuid;

/// One organisation with two accounts, an address on each, metadata, billing data on the
/// first account, and an API client.
pub struct Tenant {
    pub organisation: Uuid,
    pub accounts: Vec<Uuid>,
    pub organisation_address: Uuid,
    pub account_address: Uuid,
    pub client: NewClient,
}

pub struct World {
    pub app: TestApp,
    pub admin: Admin,
    pub a: Tenant,
    pub b: Tenant,
}

pub async fn spawn(backend: Backend) -> (TestApp, Admin) {
    spawn_with(backend, Secrets::ephemeral().unwrap()).await
}

/// Identity with its signing keys sealed under `secrets`.
pub async fn spawn_with(backend: Backend, secrets: Secrets) -> (TestApp, Admin) {
    spawn_configured(
        backend,
        ServerOptions::default(),
        ThrottleSettings::default(),
        secrets,
    )
    .await
}

/// Identity with the server's `options`, its token endpoint's `throttle`, and its signing
/// keys sealed under `secrets`.
pub async fn spawn_configured(
    backend: Backend,
    options: ServerOptions,
    throttle: ThrottleSettings,
    secrets: Secrets,
) -> (TestApp, Admin) {
    let mut admin = None;
    let app = TestApp::spawn_with(backend, &[MIGRATIONS], options, |h| {
        modules(h, secrets, throttle, &mut admin)
    })
    .await;
    (app, admin.expect("admin built"))
}

/// A new identity process on `app`'s database (and with its server options), with
/// `secrets` as its master keys.
pub async fn restart(app: TestApp, secrets: Secrets) -> (TestApp, Admin) {
    let mut admin = None;
    let app = app
        .restart(|h| modules(h, secrets, ThrottleSettings::default(), &mut admin))
        .await;
    (app, admin.expect("admin built"))
}

async fn modules(
    h: Harness,
    secrets: Secrets,
    throttle: ThrottleSettings,
    admin: &mut Option<Admin>,
) -> Vec<Arc<dyn Module>> {
    let identity = start_identity_with(&h, secrets, throttle)
        .await
        .expect("identity starts");
    *admin = Some(identity.admin());
    vec![Arc::new(identity) as Arc<dyn Module>]
}

pub async fn start_identity(h: &Harness, secrets: Secrets) -> Result<Identity, KeyringError> {
    start_identity_with(h, secrets, ThrottleSettings::default()).await
}

async fn start_identity_with(
    h: &Harness,
    secrets: Secrets,
    throttle: ThrottleSettings,
) -> Result<Identity, KeyringError> {
    // A quick reload, so a rotation made through `Admin` shows up within a test.
    let settings = IdentitySettings {
        key_reload: std::time::Duration::from_millis(50),
        failure_throttle: throttle,
        ..IdentitySettings::default()
    };
    Identity::start(
        h.store.clone(),
        h.clock_arc(),
        h.keys.clone(),
        h.bus.clone(),
        secrets,
        settings,
    )
    .await
}

fn address(kind: &str, city: &str) -> AddressInput {
    AddressInput {
        address_line1: "Bahnhofstrasse 1".into(),
        address_line2: "c/o Finance".into(),
        postal_code: "8001".into(),
        city: city.into(),
        country_code: "CH".into(),
        kind: kind.into(),
    }
}

fn uuid_of(v: &Value) -> Uuid {
    v["uuid"].as_str().unwrap().parse().unwrap()
}

pub async fn tenant(admin: &Admin, name: &str) -> Tenant {
    let org = admin
        .create_organisation(OrganisationInput {
            name: name.into(),
            approval_status: Some("approved".into()),
            merchant_category_code: Some("8398".into()),
            locale: Some("de_CH".into()),
        })
        .await
        .unwrap();
    let organisation = uuid_of(&org);
    let mut accounts = Vec::new();
    for account in ["Donations", "Events"] {
        accounts.push(uuid_of(
            &admin.create_account(organisation, account).await.unwrap(),
        ));
    }
    let organisation_address = uuid_of(
        &admin
            .add_organisation_address(organisation, address("main", "Zürich"))
            .await
            .unwrap(),
    );
    let account_address = uuid_of(
        &admin
            .add_account_address(accounts[0], address("billing", "Bern"))
            .await
            .unwrap(),
    );
    let meta = BTreeMap::from([
        ("crm_id".to_owned(), format!("{name}-1")),
        ("tier".to_owned(), "gold".to_owned()),
    ]);
    admin
        .set_metadata(organisation, meta.clone())
        .await
        .unwrap();
    admin
        .set_metadata(
            accounts[0],
            BTreeMap::from([("cost_centre".to_owned(), "42".to_owned())]),
        )
        .await
        .unwrap();
    admin
        .set_billing_data(
            accounts[0],
            BillingInput {
                account_holder: format!("{name} Foundation"),
                iban: "CH93 0076 2011 6238 5295 7".into(),
                vat_number: "CHE-123.456.789 MWST".into(),
                recipient_emails: vec!["finance@example.org".into()],
                address: address("billing", "Basel"),
            },
        )
        .await
        .unwrap();
    let client = admin
        .create_client(ClientAccess::Organisations(vec![organisation]))
        .await
        .unwrap();
    Tenant {
        organisation,
        accounts,
        organisation_address,
        account_address,
        client,
    }
}

pub async fn world(backend: Backend) -> World {
    world_with(
        backend,
        ServerOptions::default(),
        ThrottleSettings::default(),
    )
    .await
}

pub async fn world_with(
    backend: Backend,
    options: ServerOptions,
    throttle: ThrottleSettings,
) -> World {
    let (app, admin) =
        spawn_configured(backend, options, throttle, Secrets::ephemeral().unwrap()).await;
    let a = tenant(&admin, "Alpine Aid").await;
    let b = tenant(&admin, "Baltic Relief").await;
    World { app, admin, a, b }
}

impl World {
    /// A token from the token endpoint, as a client would get it.
    pub async fn token(&self, client: &NewClient) -> String {
        client_token(&self.app, client).await
    }

    /// Every read endpoint that belongs to tenant `t`.
    pub fn endpoints_of(t: &Tenant) -> Vec<String> {
        let (o, a) = (t.organisation, t.accounts[0]);
        vec![
            format!("/organisations/{o}"),
            format!("/organisations/{o}/addresses"),
            format!("/organisations/{o}/addresses/{}", t.organisation_address),
            format!("/organisations/{o}/metadata"),
            format!("/accounts/{a}"),
            format!("/accounts/{a}/billing-data"),
            format!("/accounts/{a}/addresses"),
            format!("/accounts/{a}/addresses/{}", t.account_address),
            format!("/accounts/{a}/metadata"),
        ]
    }
}

/// A token from `app`'s token endpoint, as a client would get it.
pub async fn client_token(app: &TestApp, client: &NewClient) -> String {
    let res = app
        .http
        .post(app.url("/oauth2/token"))
        .json(&serde_json::json!({
            "grant_type": "client_credentials",
            "client_id": client.client_id,
            "client_secret": client.client_secret,
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "token grant");
    let body: Value = res.json().await.unwrap();
    body["access_token"].as_str().unwrap().to_owned()
}

pub async fn json(res: reqwest::Response) -> Value {
    assert_eq!(
        res.headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned()),
        Some("application/json".to_owned()),
        "exact JSON content type"
    );
    res.json().await.unwrap()
}
