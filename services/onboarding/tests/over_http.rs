//! Onboarding calling identity over HTTP, as the distributed services do: a platform
//! client's token, `POST /internal/onboardings` (asked twice, answered the same),
//! `POST /internal/user-credentials` with its throttle, and `GET /internal/user-emails`.
//! Identity runs as its own server; onboarding as another.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use coffer_http::Module;
use coffer_identity::admin::{Admin, ClientAccess};
use coffer_identity::{Identity, IdentitySettings};
use coffer_onboarding::captcha::TestCaptcha;
use coffer_onboarding::configurations::ConfigurationInput;
use coffer_onboarding::identity::HttpIdentity;
use coffer_onboarding::{MIGRATIONS, Onboarding, OnboardingSettings};
use coffer_testkit::TestApp;
use serde_json::{Value, json};
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";

fn request(configuration: &str, email: &str) -> Value {
    let address = json!({"address_line1": "Bahnhofstrasse 1", "postal_code": "8001", "city": "Zürich", "country": "CH"});
    json!({
        "external_id": "crm-9",
        "onboarding_configuration_uuid": configuration,
        "user": {"email": email, "first_name": "Ann", "last_name": "Example"},
        "organisation": {"name": "Alpine Aid", "main_address": address, "billing_address": address,
            "billing_information": {"iban": "CH93 0076 2011 6238 5295 7", "account_holder": "Alpine Aid"}},
    })
}

coffer_testkit::backend_tests! {
    async fn execute_connect_and_the_email_check_reach_identity_over_http(backend) {
        let mut admin: Option<Admin> = None;
        let identity = TestApp::spawn(backend, &[coffer_identity::MIGRATIONS], |h| {
            let admin = &mut admin;
            async move {
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
                *admin = Some(identity.admin());
                vec![Arc::new(identity) as Arc<dyn Module>]
            }
        })
        .await;
        let admin = admin.unwrap();
        let platform = admin.create_client(ClientAccess::Platform).await.unwrap();
        let tenant = admin.create_client(ClientAccess::Organisations(vec![])).await.unwrap();
        let base = identity.url("");

        let http_identity = Arc::new(HttpIdentity::new(
            base.clone(),
            platform.client_id.clone(),
            platform.client_secret.clone(),
        ));
        let onboarding = TestApp::spawn(backend, &[MIGRATIONS], |h| async move {
            let o = Onboarding::start(
                h.store.clone(),
                h.clock_arc(),
                h.bus.clone(),
                http_identity,
                Arc::new(TestCaptcha),
                coffer_secrets::Secrets::ephemeral().unwrap(),
                OnboardingSettings::default(),
            )
            .await
            .unwrap();
            vec![Arc::new(o) as Arc<dyn Module>]
        })
        .await;
        let partner = Uuid::new_v4();
        let configuration = coffer_onboarding::configurations::commands::create(
            &onboarding.store,
            0,
            ConfigurationInput { partner_uuid: partner, account_labels: vec!["Donations".into()], default_locale: Some("fr".into()) },
        )
        .await
        .unwrap();
        let mut claims = onboarding.claims_for(&[]);
        claims.partner = Some(partner);
        let token = onboarding.sign(&claims);
        let http = &onboarding.http;
        let create = |email: &str| {
            http.post(onboarding.url("/partner-onboarding-processes"))
                .bearer_auth(&token)
                .json(&request(&configuration.uuid, email))
                .send()
        };

        // Executes of one token sent all at once: one completes, the rest are 409, and
        // identity makes one organisation.
        let raced: Value = create("racer@example.org").await.unwrap().json().await.unwrap();
        let raced_execute = onboarding.url(&format!("/partner-onboarding-processes/tokens/{}/execute", raced["token"].as_str().unwrap()));
        let mut racing = Vec::new();
        for _ in 0..10 {
            let (http, url) = (http.clone(), raced_execute.clone());
            racing.push(tokio::spawn(async move { http.post(url).send().await.unwrap().status().as_u16() }));
        }
        let mut answers = Vec::new();
        for r in racing {
            answers.push(r.await.unwrap());
        }
        answers.sort_unstable();
        assert_eq!(answers.iter().filter(|a| **a == 201).count(), 1, "{answers:?}");
        assert!(answers.iter().all(|a| *a == 201 || *a == 409), "{answers:?}");

        // Execute: identity makes the organisation, its account and the user.
        let process: Value = create("ann@example.org").await.unwrap().json().await.unwrap();
        let execute = onboarding.url(&format!("/partner-onboarding-processes/tokens/{}/execute", process["token"].as_str().unwrap()));
        let res = http.post(&execute).json(&json!({"user": {"password": "short"}})).send().await.unwrap();
        assert_eq!(res.status(), 400, "identity's refusal is passed on, naming the property");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["errors"][0]["property"], "user.password", "{body}");
        let res = http.post(&execute).json(&json!({"user": {"password": PASSWORD}})).send().await.unwrap();
        assert_eq!(res.status(), 201);
        let done: Value = res.json().await.unwrap();
        let organisation = done["results"]["organisation"]["uuid"].as_str().unwrap().to_owned();
        let read = identity.get(&format!("/organisations/{organisation}"), &identity.platform_token()).await;
        assert_eq!(read.status(), 200);
        let org: Value = read.json().await.unwrap();
        assert_eq!(org["name"], "Alpine Aid");
        assert_eq!(org["approval_status"], "approval_pending");

        // The same onboarding asked of identity again answers what was made, and makes
        // nothing more; a platform client only.
        let planned = json!({
            "organisation": {"uuid": organisation, "name": "Alpine Aid", "merchant_category_code": null, "locale": null,
                "main_address": {"address_line1": "Bahnhofstrasse 1", "postal_code": "8001", "city": "Zürich", "country": "CH"},
                "billing_address": {"address_line1": "Bahnhofstrasse 1", "postal_code": "8001", "city": "Zürich", "country": "CH"},
                "billing_information": null},
            "accounts": [{"uuid": done["results"]["accounts"]["Donations"]["uuid"], "label": "Donations"}],
            "user": {"uuid": done["results"]["user"]["uuid"], "email": "ann@example.org", "name": "Ann Example", "locale": "fr", "password": null},
        });
        let again = identity.http.post(identity.url("/internal/onboardings"))
            .bearer_auth(identity.platform_token()).json(&planned).send().await.unwrap();
        assert_eq!(again.status(), 200);
        let tenant_token = {
            let res: Value = identity.http.post(identity.url("/oauth2/token"))
                .form(&[("grant_type", "client_credentials"), ("client_id", tenant.client_id.as_str()), ("client_secret", tenant.client_secret.as_str())])
                .send().await.unwrap().json().await.unwrap();
            res["access_token"].as_str().unwrap().to_owned()
        };
        let refused = identity.http.post(identity.url("/internal/onboardings"))
            .bearer_auth(tenant_token).json(&planned).send().await.unwrap();
        assert_eq!(refused.status(), 403);

        // The e-mail check asks identity.
        let exists = http.get(onboarding.url("/partner-onboarding-processes/user-emails/ANN@example.org?recaptcha_token=test-ok")).send().await.unwrap();
        assert_eq!(exists.status(), 200);
        let none = http.get(onboarding.url("/partner-onboarding-processes/user-emails/bob@example.org?recaptcha_token=test-ok")).send().await.unwrap();
        assert_eq!(none.status(), 404);

        // A second process for the same person: execute would take the address again (409);
        // connect proves who they are instead.
        let second: Value = create("ann@example.org").await.unwrap().json().await.unwrap();
        let by = |what: &str| onboarding.url(&format!("/partner-onboarding-processes/tokens/{}/{what}", second["token"].as_str().unwrap()));
        let res = http.post(by("execute")).send().await.unwrap();
        assert_eq!(res.status(), 409);
        let res = http.post(by("connect")).send().await.unwrap();
        assert_eq!(res.status(), 401, "no credentials");
        let res = http.post(by("connect")).basic_auth("ann@example.org", Some("wrong password!")).send().await.unwrap();
        assert_eq!(res.status(), 401);
        let res = http.post(by("connect")).basic_auth("Ann@Example.org", Some(PASSWORD)).send().await.unwrap();
        assert_eq!(res.status(), 201);
        let connected: Value = res.json().await.unwrap();
        assert_eq!(connected["results"]["organisation"]["uuid"], organisation.as_str());
    }
}
