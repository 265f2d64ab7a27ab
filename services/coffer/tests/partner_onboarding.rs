//! Partner onboarding end to end against `coffer dev`, as a partner and the person it
//! brings would go through it: a process, the e-mail check, execute, the new user signing
//! in through SSO, the partner reading the new organisation with its own token, and the
//! partner's access ending with the integration.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";
const REDIRECT: &str = "http://127.0.0.1:9/sso/callback";

struct Partner {
    uuid: String,
    client_id: String,
    client_secret: String,
    configuration: String,
}

fn partner(dir: &std::path::Path) -> Partner {
    let p = common::admin(
        dir,
        &[
            "partner",
            "create",
            "--name",
            "Helpful CRM",
            "--redirect-uri",
            REDIRECT,
        ],
    );
    let uuid = p["uuid"].as_str().unwrap().to_owned();
    let c = common::admin(
        dir,
        &[
            "onboarding-configuration",
            "create",
            "--partner",
            &uuid,
            "--account-label",
            "Donations",
            "--account-label",
            "Events",
            "--locale",
            "de",
        ],
    );
    assert_eq!(c["account_labels"], json!(["Donations", "Events"]));
    Partner {
        uuid,
        client_id: p["client_id"].as_str().unwrap().to_owned(),
        client_secret: p["client_secret"].as_str().unwrap().to_owned(),
        configuration: c["uuid"].as_str().unwrap().to_owned(),
    }
}

fn request(configuration: &str, email: &str) -> Value {
    let address = json!({"address_line1": "Bahnhofstrasse 1", "address_line2": "", "postal_code": "8001", "city": "Zürich", "country": "CH"});
    json!({
        "external_id": "crm-42",
        "onboarding_configuration_uuid": configuration,
        "user": {"email": email, "first_name": "Ann", "last_name": "Example", "locale": "de_CH"},
        "organisation": {"name": "Alpine Aid", "merchant_category_code": "8398",
            "main_address": address, "billing_address": address,
            "billing_information": {"iban": "CH93 0076 2011 6238 5295 7", "bank_name": "Alpine Bank", "account_holder": "Alpine Aid"}},
    })
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Signs `email` in through the login page and answers the ID token's claims.
async fn sign_in(base: &str, p: &Partner, email: &str) -> Value {
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let query = [
        ("client_id", p.client_id.as_str()),
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("scope", "openid email name"),
        ("state", "s"),
    ];
    let page = browser
        .get(format!("{base}/oauth2/authorize"))
        .query(&query)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let cookie = page.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let html = page.text().await.unwrap();
    let marker = "name=\"form_token\" value=\"";
    let start = html.find(marker).unwrap() + marker.len();
    let form_token = html[start..start + html[start..].find('"').unwrap()].replace("&amp;", "&");
    let mut form: Vec<(&str, &str)> = query.to_vec();
    form.extend([
        ("form_token", form_token.as_str()),
        ("email", email),
        ("password", PASSWORD),
    ]);
    let res = browser
        .post(format!("{base}/oauth2/authorize"))
        .header("cookie", cookie)
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 302);
    let location = url::Url::parse(res.headers()["location"].to_str().unwrap()).unwrap();
    let got: HashMap<String, String> = location.query_pairs().into_owned().collect();
    let (status, tokens) = send(
        reqwest::Client::new()
            .post(format!("{base}/oauth2/token"))
            .basic_auth(&p.client_id, Some(&p.client_secret))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", &got["code"]),
                ("redirect_uri", REDIRECT),
            ]),
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
    let payload = tokens["id_token"]
        .as_str()
        .unwrap()
        .split('.')
        .nth(1)
        .unwrap()
        .to_owned();
    use base64::Engine;
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

/// Waits (bounded) until `path` answers `want` to a fresh token of the partner: access
/// follows the integration's events to each service.
async fn eventually(base: &str, p: &Partner, path: &str, want: u16) {
    for _ in 0..100 {
        let token = common::token(base, &p.client_id, &p.client_secret).await;
        if common::get(base, path, &token).await.0 == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{path} never answered {want} to the partner");
}

#[tokio::test]
async fn a_partner_onboards_an_organisation_and_its_user_signs_in() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let base = c["base_url"].as_str().unwrap().to_owned();
    let p = partner(dir.path());
    let token = common::token(&base, &p.client_id, &p.client_secret).await;
    let http = reqwest::Client::new();
    let email = "ann@alpine-aid.example";

    // Only a partner's client starts a process, and only with its own configuration.
    let demo = common::demo_token(&c).await;
    let (status, _) = send(
        http.post(format!("{base}/partner-onboarding-processes"))
            .bearer_auth(&demo)
            .json(&request(&p.configuration, email)),
    )
    .await;
    assert_eq!(status, 403);
    let (status, body) = send(
        http.post(format!("{base}/partner-onboarding-processes"))
            .bearer_auth(&token)
            .json(&json!({"user": {}})),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let (status, created) = send(
        http.post(format!("{base}/partner-onboarding-processes"))
            .bearer_auth(&token)
            .json(&request(&p.configuration, email)),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["status"], "pending");
    assert_eq!(created["label"], "Pending");
    assert_eq!(created["expired"], false);
    assert_eq!(
        created["initialisation_data"],
        request(&p.configuration, email)
    );
    assert!(created.get("partner_integration_uuid").is_some());
    let process_token = created["token"].as_str().unwrap().to_owned();
    let uuid = created["uuid"].as_str().unwrap().to_owned();
    let week = created["expires_at"].as_i64().unwrap() - created["created"].as_i64().unwrap();
    assert_eq!(week, 7 * 86_400);

    let (status, by_uuid) = send(
        http.get(format!("{base}/partner-onboarding-processes/{uuid}"))
            .bearer_auth(&token),
    )
    .await;
    assert_eq!(
        (status, by_uuid["token"].as_str()),
        (201, Some(process_token.as_str()))
    );
    let (status, _) = send(
        http.get(format!("{base}/partner-onboarding-processes/{uuid}"))
            .bearer_auth(&demo),
    )
    .await;
    assert_eq!(
        status, 404,
        "another client does not see the partner's process"
    );
    let (status, by_token) = send(http.get(format!(
        "{base}/partner-onboarding-processes/tokens/{process_token}"
    )))
    .await;
    assert_eq!(status, 201);
    assert!(by_token.get("partner_integration_uuid").is_none());

    // The e-mail check: a captcha is required, and checked.
    let check = |captcha: Option<&str>| {
        let mut url = format!("{base}/partner-onboarding-processes/user-emails/{email}");
        if let Some(c) = captcha {
            url.push_str(&format!("?recaptcha_token={c}"));
        }
        send(http.get(url))
    };
    let (status, body) = check(None).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"][0]["code"], "error.validation.not_null",
        "{body}"
    );
    assert_eq!(check(Some("forged")).await.0, 403);
    assert_eq!(check(Some("test-ok")).await.0, 404);
    // An address that is not one is a fault of the request (shape A, not_valid), named
    // beside a missing captcha; it never reads as "no user has it".
    let (status, body) = send(http.get(format!(
        "{base}/partner-onboarding-processes/user-emails/not-an-address"
    )))
    .await;
    assert_eq!(status, 400, "{body}");
    let named: Vec<_> = body["error"]["message"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["property"].clone(), m["code"].clone()))
        .collect();
    assert_eq!(
        named,
        vec![
            (json!("email"), json!("error.validation.not_valid")),
            (json!("recaptcha_token"), json!("error.validation.not_null")),
        ],
        "{body}"
    );
    let (status, body) = send(http.get(format!(
        "{base}/partner-onboarding-processes/user-emails/not-an-address?recaptcha_token=test-ok"
    )))
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["message"][0]["property"], "email", "{body}");

    // Execute: the organisation, its two accounts and the user.
    let execute = format!("{base}/partner-onboarding-processes/tokens/{process_token}/execute");
    let (status, body) = send(
        http.post(&execute)
            .header("content-type", "application/json")
            .body("{not json"),
    )
    .await;
    assert_eq!(status, 400, "an unreadable body changes nothing: {body}");
    let (status, done) = send(
        http.post(&execute)
            .json(&json!({"user": {"password": PASSWORD}})),
    )
    .await;
    assert_eq!(status, 201, "{done}");
    assert_eq!(done["status"], "completed");
    let organisation = done["results"]["organisation"]["uuid"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(done["results"]["accounts"]["Donations"]["uuid"].is_string());
    assert!(done["results"]["accounts"]["Events"]["uuid"].is_string());
    let user = done["results"]["user"]["uuid"].as_str().unwrap().to_owned();
    let (status, _) = send(http.post(&execute).json(&json!({}))).await;
    assert_eq!(status, 409, "a second execute");
    assert_eq!(check(Some("test-ok")).await.0, 200);

    // The new user signs in through SSO.
    let claims = sign_in(&base, &p, email).await;
    assert_eq!(claims["sub"], user.as_str());
    assert_eq!(claims["name"], "Ann Example");

    // The partner reads the new organisation with its own token, and its accounts.
    eventually(&base, &p, &format!("/organisations/{organisation}"), 200).await;
    let token = common::token(&base, &p.client_id, &p.client_secret).await;
    let (status, org) = common::get(&base, &format!("/organisations/{organisation}"), &token).await;
    assert_eq!(status, 200);
    assert_eq!(org["name"], "Alpine Aid");
    // ...and no other organisation.
    let demo_org = c["organisation_uuid"].as_str().unwrap();
    assert_eq!(
        common::get(&base, &format!("/organisations/{demo_org}"), &token)
            .await
            .0,
        403
    );

    // A webhook endpoint the partner makes for the organisation is the partner's: it is
    // turned off with the integration.
    let (status, hook) = send(http.post(format!("{base}/webhooks")).bearer_auth(&token)
        .json(&json!({"organisation_uuid": organisation, "endpoint": "https://crm.example/hooks"}))).await;
    assert_eq!(status, 201, "{hook}");
    let hook = hook["uuid"].as_str().unwrap().to_owned();
    let platform = common::admin(dir.path(), &["client", "create", "--platform"]);
    let platform = common::token(
        &base,
        platform["client_id"].as_str().unwrap(),
        platform["client_secret"].as_str().unwrap(),
    )
    .await;

    // The integration, listed, then disabled: the partner's new tokens no longer reach it.
    let (status, list) = send(
        http.get(format!(
            "{base}/partner-integrations?organisation_uuid={organisation}"
        ))
        .bearer_auth(&token),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["partner_uuid"], p.uuid.as_str());
    let integration = list[0]["uuid"].as_str().unwrap().to_owned();
    let (status, off) = send(
        http.post(format!("{base}/partner-integrations/{integration}/disable"))
            .bearer_auth(&token),
    )
    .await;
    assert_eq!((status, off["status"].as_str()), (200, Some("disabled")));
    eventually(&base, &p, &format!("/organisations/{organisation}"), 403).await;
    let mut off = Value::Null;
    for _ in 0..100 {
        off = common::get(&base, &format!("/webhooks/{hook}"), &platform)
            .await
            .1;
        if off["enabled"] == false {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(off["enabled"], false, "{off}");
    assert_eq!(
        off["disabled_reason"], "partner_integration_disabled",
        "{off}"
    );

    // Connect: the user proves who they are, and their organisation is connected again.
    let (status, second) = send(
        http.post(format!("{base}/partner-onboarding-processes"))
            .bearer_auth(&token)
            .json(&request(&p.configuration, email)),
    )
    .await;
    assert_eq!(status, 201);
    let connect = format!(
        "{base}/partner-onboarding-processes/tokens/{}/connect",
        second["token"].as_str().unwrap()
    );
    let (status, _) = send(
        http.post(&connect)
            .basic_auth(email, Some("wrong password!")),
    )
    .await;
    assert_eq!(status, 401);
    let (status, connected) = send(http.post(&connect).basic_auth(email, Some(PASSWORD))).await;
    assert_eq!(status, 201, "{connected}");
    assert_eq!(
        connected["results"]["organisation"]["uuid"],
        organisation.as_str()
    );
    assert_eq!(
        send(http.post(&connect).basic_auth(email, Some(PASSWORD)))
            .await
            .0,
        409
    );
    eventually(&base, &p, &format!("/organisations/{organisation}"), 200).await;
}
