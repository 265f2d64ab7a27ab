//! Payments under test beside identity, each on its own database, sharing one bus: the
//! organisations payments knows come from identity's events, as in production.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use coffer_http::Module;
use coffer_identity::admin::{Admin, ClientAccess};
use coffer_identity::domain::directory::OrganisationInput;
use coffer_identity::{Identity, IdentitySettings};
#[allow(unused_imports)]
pub use coffer_payments::connectors::faults::{Fault, Faults};
use coffer_payments::{Payments, PaymentsSettings};
pub use coffer_store::SearchOptions;
use coffer_store::Store;
pub use coffer_testkit::{Backend, TestApp};
use serde_json::Value;
use uuid::Uuid;

pub struct World {
    pub app: TestApp,
    pub admin: Admin,
    pub payments: Store,
    /// The stores of the services `world_with` added, in their order.
    pub more: Vec<Store>,
    /// The faults the test provider shows; none unless a test sets one.
    pub faults: Faults,
}

/// How long the test world's payments wait for the provider, and then for an unanswered
/// call before asking the provider what it did. Short, so failure tests are quick, but not
/// so short that a loaded machine times out calls that answer: the world's clock stands
/// still unless a test moves it, so a call that timed out is never settled by itself.
pub const CONNECTOR_TIMEOUT: Duration = Duration::from_secs(2);
pub const SETTLE_AFTER: Duration = Duration::from_secs(3);

pub async fn world(backend: Backend) -> World {
    world_with(backend, &[], |_, _| Vec::new()).await
}

/// The world with more services beside identity and payments (billing's tests use it):
/// `more` gets the harness and a database per migration set, and returns the modules.
pub async fn world_with(
    backend: Backend,
    migrations: &[coffer_store::Migrations],
    more: impl FnOnce(&coffer_testkit::Harness, &[Store]) -> Vec<Arc<dyn Module>>,
) -> World {
    world_searching(backend, SearchOptions::default(), migrations, more).await
}

/// [`world_with`] whose payments searches have `searches`' pool and bounds.
pub async fn world_searching(
    backend: Backend,
    searches: SearchOptions,
    migrations: &[coffer_store::Migrations],
    more: impl FnOnce(&coffer_testkit::Harness, &[Store]) -> Vec<Arc<dyn Module>>,
) -> World {
    let mut parts = None;
    let faults = Faults::default();
    let provider_faults = faults.clone();
    let app = TestApp::spawn(backend, &[coffer_identity::MIGRATIONS], |h| {
        let parts = &mut parts;
        async move {
            let mut stores = Vec::new();
            for set in migrations {
                stores.push(h.database(*set).await);
            }
            let extra = more(&h, &stores);
            let identity = Identity::start(
                h.store.clone(),
                h.clock_arc(),
                h.keys.clone(),
                h.bus.clone(),
                coffer_secrets::Secrets::ephemeral().unwrap(),
                IdentitySettings::default(),
            )
            .await
            .unwrap();
            let payments_store = h
                .database_searching(coffer_payments::MIGRATIONS, searches)
                .await;
            let payments = Payments::new(
                payments_store.clone(),
                h.clock_arc(),
                h.bus.clone(),
                PaymentsSettings {
                    connector_timeout: CONNECTOR_TIMEOUT,
                    settle_after: SETTLE_AFTER,
                    test_psp_faults: provider_faults,
                    ..PaymentsSettings::default()
                },
            );
            *parts = Some((identity.admin(), payments_store, stores));
            let mut modules = vec![
                Arc::new(identity) as Arc<dyn Module>,
                Arc::new(payments) as Arc<dyn Module>,
            ];
            modules.extend(extra);
            modules
        }
    })
    .await;
    let (admin, payments, more) = parts.unwrap();
    World {
        app,
        admin,
        payments,
        more,
        faults,
    }
}

impl World {
    /// The same databases served by a new process that `start` makes (or none, with why
    /// its start failed), as [`TestApp::restart_trying`].
    pub async fn restart_trying<F, Fut, E>(self, start: F) -> (World, Result<(), E>)
    where
        F: FnOnce(coffer_testkit::Harness) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Arc<dyn Module>>, E>>,
    {
        let World {
            app,
            admin,
            payments,
            more,
            faults,
        } = self;
        let (app, started) = app.restart_trying(start).await;
        let w = World {
            app,
            admin,
            payments,
            more,
            faults,
        };
        (w, started)
    }

    /// An organisation with an account whose payment method profiles payments already
    /// knows, and a token for it: (organisation, account, token).
    pub async fn merchant(&self) -> (Uuid, String, String) {
        self.merchant_named("Alpine Aid").await
    }

    /// [`World::merchant`] by another name, for a second organisation beside the first.
    pub async fn merchant_named(&self, name: &str) -> (Uuid, String, String) {
        let org = self.organisation(name).await;
        let token = self.token(org).await;
        let account = self.admin.create_account(org, "Donations").await.unwrap()["uuid"]
            .as_str()
            .unwrap()
            .to_owned();
        for _ in 0..800 {
            let (_, profiles) = self
                .get(
                    &format!("/payment-method-profiles?account_uuid={account}"),
                    &token,
                )
                .await;
            if profiles.as_array().is_some_and(|p| p.len() == 4) {
                return (org, account, token);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the account's profiles never appeared");
    }

    /// An organisation made in identity, once payments has learnt of it.
    pub async fn organisation(&self, name: &str) -> Uuid {
        let org = self
            .admin
            .create_organisation(OrganisationInput {
                name: name.into(),
                ..Default::default()
            })
            .await
            .unwrap();
        let uuid: Uuid = org["uuid"].as_str().unwrap().parse().unwrap();
        for _ in 0..800 {
            let key = uuid.to_string();
            if self
                .payments
                .query(move |db| coffer_directory::organisation_exists(db, &key))
                .await
                .unwrap()
            {
                return uuid;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("payments never learnt of organisation {uuid}");
    }

    /// A real token for a new client of `organisation`, from the token endpoint.
    pub async fn token(&self, organisation: Uuid) -> String {
        self.token_of_many(vec![organisation]).await
    }

    /// [`World::token`] for a client reaching each of `organisations`.
    pub async fn token_of_many(&self, organisations: Vec<Uuid>) -> String {
        let client = self
            .admin
            .create_client(ClientAccess::Organisations(organisations))
            .await
            .unwrap();
        let res = self
            .app
            .http
            .post(self.app.url("/oauth2/token"))
            .form(&[
                ("grant_type", "client_credentials"),
                ("client_id", client.client_id.as_str()),
                ("client_secret", client.client_secret.as_str()),
            ])
            .send()
            .await
            .unwrap();
        res.json::<Value>().await.unwrap()["access_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub async fn post(
        &self,
        path: &str,
        token: &str,
        body: &Value,
        key: Option<&str>,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let mut req = self
            .app
            .http
            .post(self.app.url(path))
            .bearer_auth(token)
            .json(body);
        if let Some(key) = key {
            req = req.header("Idempotency-Key", key);
        }
        let res = req.send().await.unwrap();
        let (status, headers) = (res.status().as_u16(), res.headers().clone());
        assert_eq!(headers["content-type"], "application/json");
        (status, res.json().await.unwrap(), headers)
    }

    pub async fn patch(&self, path: &str, token: &str, body: &Value) -> (u16, Value) {
        let res = self
            .app
            .http
            .patch(self.app.url(path))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .unwrap();
        (res.status().as_u16(), res.json().await.unwrap())
    }

    /// What the test provider was asked, by key, of one kind (charge, refund, store).
    pub async fn provider_book(
        &self,
        kind: &'static str,
    ) -> Vec<coffer_payments::connectors::test_psp_ledger::Entry> {
        self.payments
            .query(move |db| coffer_payments::connectors::test_psp_ledger::of_kind(db, kind))
            .await
            .unwrap()
    }

    /// An account's payments, as a search finds them.
    pub async fn payments_of(&self, token: &str, account: &str) -> Vec<Value> {
        let query =
            serde_json::json!({"query": {"$match": {"account_uuid": account}}, "size": 100});
        let (status, found, _) = self.post("/search/payments", token, &query, None).await;
        assert_eq!(status, 200, "{found}");
        found["hits"].as_array().unwrap().clone()
    }

    pub async fn get(&self, path: &str, token: &str) -> (u16, Value) {
        let res = self.app.get(path, token).await;
        (res.status().as_u16(), res.json().await.unwrap())
    }
}

/// Shorthand for [`World::merchant`].
pub async fn merchant(w: &World) -> (Uuid, String, String) {
    w.merchant().await
}

/// What a donor's browser does: open the action URL, press a button, follow the answer.
pub async fn press(w: &World, payment: &Value, button: &str) -> String {
    let url = payment["action"]["url"].as_str().unwrap();
    let path = url
        .split_once("/test-psp/")
        .map(|(_, rest)| format!("/test-psp/{rest}"))
        .unwrap();
    let page = w.app.http.get(w.app.url(&path)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().await.unwrap();
    assert!(html.contains(&format!("id=\"{button}\"")), "{html}");
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = browser
        .post(w.app.url(&format!("{path}/{button}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    res.headers()["location"].to_str().unwrap().to_owned()
}

/// A subscription to one domain's topic (`payment_gateway`, `supporters`), as a consumer
/// of payments would have.
pub async fn subscribe(w: &World, domain: &str) -> Box<dyn coffer_events::Subscription> {
    use coffer_events::Bus;
    let topic = coffer_events::catalogue::topic("coffer", domain);
    w.app
        .bus
        .subscribe(&format!("test-{domain}"), &[topic])
        .await
        .unwrap()
}

/// The next event called `name` (others are passed over), within ten seconds.
pub async fn next_named(
    sub: &mut Box<dyn coffer_events::Subscription>,
    name: &str,
) -> coffer_events::Event {
    loop {
        let delivery = tokio::time::timeout(Duration::from_secs(10), sub.next())
            .await
            .unwrap_or_else(|_| panic!("no {name} within 10 s"))
            .unwrap();
        sub.ack(&delivery).await.unwrap();
        let event = coffer_events::Event::from_json(&delivery.message.payload).unwrap();
        if event.name == name {
            return event;
        }
    }
}

/// A card payment of CHF 10.50 into `account` with the test card `number`, as a client
/// sends it (the number chooses the test provider's answer).
pub fn card_payment(account: &str, number: &str) -> Value {
    serde_json::json!({
        "account_uuid": account,
        "payment_method": "card",
        "amount": {"value": "1050", "currency": "CHF"},
        "payment_information": {"number": number, "expiry_month": 12, "expiry_year": 2030, "cvv": "123", "cardholder": "Ada Lovelace"},
        "custom_parameters": {"campaign": "winter"},
        "return_url": "https://charity.example/thanks"
    })
}
