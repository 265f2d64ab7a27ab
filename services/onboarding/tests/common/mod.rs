//! Onboarding served on its own with an identity that says yes, for tests of what is kept
//! of a process: its token at rest, and its create under an Idempotency-Key.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::IpAddr;
use std::sync::Arc;

use coffer_http::{ApiError, Module};
use coffer_onboarding::captcha::TestCaptcha;
use coffer_onboarding::configurations::ConfigurationInput;
use coffer_onboarding::identity::{Answer, IdentityPort, KnownUser, Onboarded};
use coffer_onboarding::{MIGRATIONS, Onboarding, OnboardingError, OnboardingSettings};
use coffer_secrets::Secrets;
#[allow(unused_imports)]
pub use coffer_testkit::master_keys;
use coffer_testkit::{Backend, Harness, TestApp};
use serde_json::{Value, json};
use uuid::Uuid;

/// Identity that makes every onboarding it is asked for.
struct Agreeable;

impl IdentityPort for Agreeable {
    fn onboard(&self, request: Value) -> Answer<'_, Onboarded> {
        Box::pin(async move {
            Ok(Onboarded {
                organisation_uuid: request["organisation"]["uuid"]
                    .as_str()
                    .unwrap()
                    .parse()
                    .unwrap(),
                user_uuid: request["user"]["uuid"].as_str().unwrap().parse().unwrap(),
            })
        })
    }
    fn check_credentials(&self, _: String, _: String, _: IpAddr) -> Answer<'_, KnownUser> {
        Box::pin(async { Err(ApiError::unauthorized()) })
    }
    fn email_exists(&self, _: String) -> Answer<'_, bool> {
        Box::pin(async { Ok(false) })
    }
}

pub async fn start(h: &Harness, secrets: Secrets) -> Result<Onboarding, OnboardingError> {
    Onboarding::start(
        h.store.clone(),
        h.clock_arc(),
        h.bus.clone(),
        Arc::new(Agreeable),
        Arc::new(TestCaptcha),
        secrets,
        OnboardingSettings::default(),
    )
    .await
}

pub async fn spawn(backend: Backend, secrets: Secrets) -> TestApp {
    TestApp::spawn(backend, &[MIGRATIONS], |h| async move {
        vec![Arc::new(start(&h, secrets).await.unwrap()) as Arc<dyn Module>]
    })
    .await
}

/// The same databases served by a new process with `secrets`.
pub async fn restart(app: TestApp, secrets: Secrets) -> TestApp {
    app.restart(
        |h| async move { vec![Arc::new(start(&h, secrets).await.unwrap()) as Arc<dyn Module>] },
    )
    .await
}

/// A partner with a configuration of its own.
pub struct Partner {
    pub uuid: Uuid,
    pub configuration: String,
}

impl Partner {
    pub async fn new(app: &TestApp) -> Partner {
        let uuid = Uuid::new_v4();
        let configuration = coffer_onboarding::configurations::commands::create(
            &app.store,
            0,
            ConfigurationInput {
                partner_uuid: uuid,
                account_labels: vec!["Donations".into()],
                default_locale: None,
            },
        )
        .await
        .unwrap();
        Partner {
            uuid,
            configuration: configuration.uuid,
        }
    }

    /// The token of the partner's client for `app` (a restarted app signs with another
    /// key).
    pub fn token(&self, app: &TestApp) -> String {
        let mut claims = app.claims_for(&[]);
        claims.client_id = format!("partner-{}", self.uuid);
        claims.sub = claims.client_id.clone();
        claims.partner = Some(self.uuid);
        app.sign(&claims)
    }
}

pub fn request(configuration: &str, email: &str) -> Value {
    let address = json!({"address_line1": "Bahnhofstrasse 1", "postal_code": "8001", "city": "Zürich", "country": "CH"});
    json!({
        "external_id": "crm-11",
        "onboarding_configuration_uuid": configuration,
        "user": {"email": email, "first_name": "Ann", "last_name": "Example"},
        "organisation": {"name": "Alpine Aid", "main_address": address, "billing_address": address},
    })
}

/// `POST /partner-onboarding-processes`, under `key` when one is given.
pub async fn create(
    app: &TestApp,
    token: &str,
    body: &Value,
    key: Option<&str>,
) -> reqwest::Response {
    let mut req = app
        .http
        .post(app.url("/partner-onboarding-processes"))
        .bearer_auth(token)
        .json(body);
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    req.send().await.unwrap()
}

/// Runs `sql` (the same text on both backends) against the app's database.
pub async fn execute(app: &TestApp, sql: String) -> usize {
    coffer_testkit::execute(&app.store, sql).await
}

/// The first column, as text, of every row `sql` selects; the column must be named `text`.
pub async fn texts(app: &TestApp, sql: String) -> Vec<String> {
    coffer_testkit::texts(&app.store, sql).await
}

/// Where `needle` is stored in clear: the SQLite files behind the app (write-ahead logs and
/// the bus's database included), and on PostgreSQL every row of every table, as text.
pub async fn stored_in_clear(app: &TestApp, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for path in app.database_files() {
        let bytes = std::fs::read(&path).unwrap();
        if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
            found.push(path.display().to_string());
        }
    }
    if app.backend == Backend::Postgres {
        let tables = texts(
            app,
            "SELECT CAST(table_name AS TEXT) AS text FROM information_schema.tables \
             WHERE table_schema = 'public'"
                .into(),
        )
        .await;
        for table in tables {
            let rows = texts(
                app,
                format!("SELECT CAST(t AS TEXT) AS text FROM \"{table}\" t"),
            )
            .await;
            if rows.iter().any(|row| row.contains(needle)) {
                found.push(format!("table {table}"));
            }
        }
    }
    found
}
