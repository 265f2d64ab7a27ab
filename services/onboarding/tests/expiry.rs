//! A process's lifetime through HTTP: readable by its token while it lasts and after, with
//! `expired: true` once its week is over, and then refused (409) by execute and connect
//! before anything is asked of identity.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::IpAddr;
use std::sync::Arc;

use coffer_http::{ApiError, Module};
use coffer_onboarding::captcha::TestCaptcha;
use coffer_onboarding::configurations::ConfigurationInput;
use coffer_onboarding::identity::{Answer, IdentityPort, KnownUser, Onboarded};
use coffer_onboarding::{MIGRATIONS, Onboarding, OnboardingSettings};
use coffer_testkit::TestApp;
use serde_json::{Value, json};
use uuid::Uuid;

/// Identity, which an expired process must never reach.
struct Untouched;

impl IdentityPort for Untouched {
    fn onboard(&self, _: Value) -> Answer<'_, Onboarded> {
        panic!("an expired process asked identity to onboard")
    }
    fn check_credentials(&self, _: String, _: String, _: IpAddr) -> Answer<'_, KnownUser> {
        panic!("an expired process asked identity to check credentials")
    }
    fn email_exists(&self, _: String) -> Answer<'_, bool> {
        Box::pin(async { Err(ApiError::unavailable("not in this test")) })
    }
}

fn request(configuration: &str) -> Value {
    let address = json!({"address_line1": "Bahnhofstrasse 1", "postal_code": "8001", "city": "Zürich", "country": "CH"});
    json!({
        "external_id": "crm-7",
        "onboarding_configuration_uuid": configuration,
        "user": {"email": "ann@example.org", "first_name": "Ann", "last_name": "Example"},
        "organisation": {"name": "Alpine Aid", "main_address": address, "billing_address": address},
    })
}

coffer_testkit::backend_tests! {
    async fn an_expired_process_shows_it_and_cannot_be_executed_or_connected(backend) {
        let app = TestApp::spawn(backend, &[MIGRATIONS], |h| async move {
            let onboarding = Onboarding::start(
                h.store.clone(),
                h.clock_arc(),
                h.bus.clone(),
                Arc::new(Untouched),
                Arc::new(TestCaptcha),
                coffer_secrets::Secrets::ephemeral().unwrap(),
                OnboardingSettings::default(),
            )
            .await
            .unwrap();
            vec![Arc::new(onboarding) as Arc<dyn Module>]
        })
        .await;
        let partner = Uuid::new_v4();
        let configuration = coffer_onboarding::configurations::commands::create(
            &app.store,
            0,
            ConfigurationInput {
                partner_uuid: partner,
                account_labels: vec!["Donations".into()],
                default_locale: None,
            },
        )
        .await
        .unwrap();
        let mut claims = app.claims_for(&[]);
        claims.partner = Some(partner);
        let token = app.sign(&claims);
        let res = app.http.post(app.url("/partner-onboarding-processes"))
            .bearer_auth(&token).json(&request(&configuration.uuid)).send().await.unwrap();
        assert_eq!(res.status(), 201);
        let created: Value = res.json().await.unwrap();
        let process_token = created["token"].as_str().unwrap();
        let by_token = format!("/partner-onboarding-processes/tokens/{process_token}");

        app.clock.advance(time::Duration::seconds(7 * 86_400 - 1));
        let record: Value = app.get_anonymous(&by_token).await.json().await.unwrap();
        assert_eq!(record["expired"], false);

        app.clock.advance(time::Duration::seconds(1));
        let res = app.get_anonymous(&by_token).await;
        assert_eq!(res.status(), 201);
        let record: Value = res.json().await.unwrap();
        assert_eq!(record["expired"], true);
        assert_eq!(record["status"], "pending");

        let res = app.http.post(app.url(&format!("{by_token}/execute"))).send().await.unwrap();
        assert_eq!(res.status(), 409);
        let res = app.http.post(app.url(&format!("{by_token}/connect")))
            .basic_auth("ann@example.org", Some("correct horse battery")).send().await.unwrap();
        assert_eq!(res.status(), 409);
        // An unknown token is 404, however it is spelled.
        let res = app.get_anonymous("/partner-onboarding-processes/tokens/nope").await;
        assert_eq!(res.status(), 404);
        let long = "x".repeat(5000);
        let res = app.get_anonymous(&format!("/partner-onboarding-processes/tokens/{long}")).await;
        assert_eq!(res.status(), 404);
    }
}
