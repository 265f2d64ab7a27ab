//! Single sign-on through HTTP, as a partner's application and a browser would use it: the
//! discovery document, the login page, the code, and the ID token checked with the
//! `openidconnect` crate's own verifier against the published keys.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use coffer_identity::partners::PartnerInput;
use coffer_identity::users::UserInput;
use coffer_model::clock::Clock;
use common::*;
use openidconnect::core::{CoreIdToken, CoreIdTokenVerifier, CoreJsonWebKeySet};
use openidconnect::{ClientId, ClientSecret, IssuerUrl, Nonce};
use serde_json::Value;

const REDIRECT: &str = "https://crm.example/sso/callback";
const PASSWORD: &str = "correct horse battery";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

struct Sso {
    w: World,
    browser: reqwest::Client,
    client_id: String,
    client_secret: String,
    user_uuid: String,
}

async fn sso_with(backend: Backend, options: ServerOptions) -> Sso {
    let w = world_with(backend, options, ThrottleSettings::default()).await;
    let partner = w
        .admin
        .create_partner(PartnerInput {
            name: "Helpful CRM <Ltd>".into(),
            redirect_uris: vec![REDIRECT.into()],
        })
        .await
        .unwrap();
    let user = w
        .admin
        .create_user(UserInput {
            email: "Ann.Example@alpine-aid.example".into(),
            name: "Ann Example".into(),
            organisation_uuid: w.a.organisation,
            locale: None,
            password: Some(PASSWORD.into()),
        })
        .await
        .unwrap();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    Sso {
        w,
        browser,
        client_id: partner.client_id,
        client_secret: partner.client_secret,
        user_uuid: user.uuid,
    }
}

async fn sso(backend: Backend) -> Sso {
    sso_with(backend, ServerOptions::default()).await
}

/// What a browser keeps between the page and its post.
struct Page {
    status: u16,
    html: String,
    cookie: Option<String>,
    csp: String,
}

impl Page {
    fn hidden(&self, name: &str) -> Option<String> {
        let marker = format!("name=\"{name}\" value=\"");
        let start = self.html.find(&marker)? + marker.len();
        let end = self.html[start..].find('"')? + start;
        Some(
            self.html[start..end]
                .replace("&amp;", "&")
                .replace("&quot;", "\""),
        )
    }
}

fn authorize_query(s: &Sso) -> Vec<(&'static str, String)> {
    vec![
        ("client_id", s.client_id.clone()),
        ("redirect_uri", REDIRECT.into()),
        ("response_type", "code".into()),
        ("scope", "openid email name".into()),
        ("state", "st-123".into()),
        ("nonce", "n-456".into()),
        ("code_challenge", CHALLENGE.into()),
        ("code_challenge_method", "S256".into()),
    ]
}

async fn open_page(s: &Sso, query: &[(&str, String)], lang: Option<&str>) -> Page {
    let mut req = s.browser.get(s.w.app.url("/oauth2/authorize")).query(query);
    if let Some(l) = lang {
        req = req.header("accept-language", l);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let cookie = res
        .headers()
        .get("set-cookie")
        .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_owned());
    let csp = res
        .headers()
        .get("content-security-policy")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    Page {
        status,
        html: res.text().await.unwrap(),
        cookie,
        csp,
    }
}

/// Posts the login form as the page built it, from `forwarded_for` when given.
async fn post_form(
    s: &Sso,
    page: &Page,
    query: &[(&str, String)],
    email: &str,
    password: &str,
    forwarded_for: Option<&str>,
) -> reqwest::Response {
    let mut form: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    form.push(("form_token".into(), page.hidden("form_token").unwrap()));
    form.push(("email".into(), email.into()));
    form.push(("password".into(), password.into()));
    let mut req = s.browser.post(s.w.app.url("/oauth2/authorize")).form(&form);
    if let Some(c) = &page.cookie {
        req = req.header("cookie", c);
    }
    if let Some(ip) = forwarded_for {
        req = req.header("x-forwarded-for", ip);
    }
    req.send().await.unwrap()
}

fn query_of(location: &str) -> std::collections::HashMap<String, String> {
    url::Url::parse(location)
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// Signs Ann in and answers the code the partner receives.
async fn code_for(s: &Sso) -> String {
    let q = authorize_query(s);
    let page = open_page(s, &q, None).await;
    assert_eq!(page.status, 200, "{}", page.html);
    let res = post_form(
        s,
        &page,
        &q,
        "ann.example@ALPINE-AID.example",
        PASSWORD,
        None,
    )
    .await;
    assert_eq!(res.status(), 302);
    let location = res.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(REDIRECT), "{location}");
    let got = query_of(&location);
    assert_eq!(got["state"], "st-123");
    got["code"].clone()
}

async fn exchange(
    s: &Sso,
    code: &str,
    redirect: &str,
    verifier: &str,
    secret: &str,
) -> (u16, Value) {
    let res =
        s.w.app
            .http
            .post(s.w.app.url("/oauth2/token"))
            .basic_auth(&s.client_id, Some(secret))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", redirect),
                ("code_verifier", verifier),
            ])
            .send()
            .await
            .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

coffer_testkit::backend_tests! {
    async fn discovery_describes_the_provider(backend) {
        let s = sso(backend).await;
        let res = s.w.app.get_anonymous("/.well-known/openid-configuration").await;
        assert_eq!(res.status(), 200);
        let doc: Value = res.json().await.unwrap();
        let issuer = s.w.app.url("");
        let issuer = issuer.trim_end_matches('/');
        assert_eq!(doc["issuer"], issuer);
        assert_eq!(doc["authorization_endpoint"], format!("{issuer}/oauth2/authorize"));
        assert_eq!(doc["token_endpoint"], format!("{issuer}/oauth2/token"));
        assert_eq!(doc["jwks_uri"], format!("{issuer}/.well-known/jwks.json"));
        assert_eq!(doc["response_types_supported"], serde_json::json!(["code"]));
        assert_eq!(doc["id_token_signing_alg_values_supported"], serde_json::json!(["RS256"]));
        assert_eq!(doc["code_challenge_methods_supported"], serde_json::json!(["S256"]));
    }

    async fn a_user_signs_in_and_the_partner_gets_a_verified_id_token(backend) {
        let s = sso(backend).await;
        let code = code_for(&s).await;
        let (status, body) = exchange(&s, &code, REDIRECT, VERIFIER, &s.client_secret).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["token_type"], "Bearer");
        assert_eq!(body["expires_in"], 0);
        // The access token is issued expired (SPEC.md): the API refuses it.
        let access = body["access_token"].as_str().unwrap();
        let res = s.w.app.get(&format!("/organisations/{}", s.w.a.organisation), access).await;
        assert_eq!(res.status(), 401);

        let jwks: CoreJsonWebKeySet = s
            .w.app.get_anonymous("/.well-known/jwks.json").await.json().await.unwrap();
        let issuer = s.w.app.url("").trim_end_matches('/').to_owned();
        let verifier = CoreIdTokenVerifier::new_confidential_client(
            ClientId::new(s.client_id.clone()),
            ClientSecret::new(s.client_secret.clone()),
            IssuerUrl::new(issuer).unwrap(),
            jwks,
        );
        // The service runs on the test's clock, so the verifier reads the same one.
        let now = chrono::DateTime::from_timestamp(s.w.app.clock.unix() + 30, 0).unwrap();
        let verifier = verifier.set_time_fn(move || now);
        let token: CoreIdToken = body["id_token"].as_str().unwrap().parse().unwrap();
        let claims = token.claims(&verifier, &Nonce::new("n-456".into())).unwrap();
        assert_eq!(claims.subject().as_str(), s.user_uuid);
        assert_eq!(claims.email().unwrap().as_str(), "Ann.Example@alpine-aid.example");
        assert_eq!(claims.name().unwrap().get(None).unwrap().as_str(), "Ann Example");
        assert!(claims.auth_time().is_some());
        // at_hash: the left half of SHA-256 over the access token (Core section 3.1.3.6).
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, access.as_bytes());
        let expected = URL_SAFE_NO_PAD.encode(&digest.as_ref()[..16]);
        assert_eq!(claims.access_token_hash().unwrap().to_string(), expected);
        // Another nonce is refused by the verifier.
        assert!(token.claims(&verifier, &Nonce::new("other".into())).is_err());
    }

    async fn a_code_works_once_and_a_second_exchange_fails(backend) {
        let s = sso(backend).await;
        let code = code_for(&s).await;
        let (first, _) = exchange(&s, &code, REDIRECT, VERIFIER, &s.client_secret).await;
        assert_eq!(first, 200);
        let (again, body) = exchange(&s, &code, REDIRECT, VERIFIER, &s.client_secret).await;
        assert_eq!(again, 400);
        assert_eq!(body["error"], "invalid_grant");
    }

    async fn a_code_is_bound_to_its_redirect_uri_verifier_and_client_secret(backend) {
        let s = sso(backend).await;
        let code = code_for(&s).await;
        let (status, body) = exchange(&s, &code, "https://crm.example/other", VERIFIER, &s.client_secret).await;
        assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")));

        let code = code_for(&s).await;
        let wrong = "A".repeat(43);
        let (status, body) = exchange(&s, &code, REDIRECT, &wrong, &s.client_secret).await;
        assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")));

        let code = code_for(&s).await;
        let (status, body) = exchange(&s, &code, REDIRECT, VERIFIER, "not-the-secret").await;
        assert_eq!((status, body["error"].as_str()), (401, Some("invalid_client")));
        // The code was not spent by the failed client authentication.
        let (status, _) = exchange(&s, &code, REDIRECT, VERIFIER, &s.client_secret).await;
        assert_eq!(status, 200);
    }

    async fn an_unknown_client_or_redirect_uri_is_an_error_page_never_a_redirect(backend) {
        let s = sso(backend).await;
        let mut q = authorize_query(&s);
        q[1].1 = "https://attacker.example/cb".into();
        let page = open_page(&s, &q, None).await;
        assert_eq!(page.status, 400);
        assert!(page.html.contains("redirect_uri"));
        // In the user's language, like the login page.
        let page = open_page(&s, &q, Some("de")).await;
        assert!(page.html.contains("Diese redirect_uri hat die Anwendung nicht registriert"));
        assert!(page.csp.contains("default-src 'none'"));
        let mut q = authorize_query(&s);
        q[0].1 = "no-such-client".into();
        let page = open_page(&s, &q, None).await;
        assert_eq!(page.status, 400);
    }

    async fn other_faults_go_back_to_the_redirect_uri(backend) {
        let s = sso(backend).await;
        let mut q = authorize_query(&s);
        q[3].1 = "email".into();
        let res = s.browser.get(s.w.app.url("/oauth2/authorize")).query(&q).send().await.unwrap();
        assert_eq!(res.status(), 302);
        let got = query_of(res.headers()["location"].to_str().unwrap());
        assert_eq!(got["error"], "invalid_scope");
        assert_eq!(got["state"], "st-123");
    }

    async fn the_login_page_is_plain_html_in_the_users_language(backend) {
        let s = sso(backend).await;
        let q = authorize_query(&s);
        let page = open_page(&s, &q, Some("fr-CH, de;q=0.5")).await;
        assert_eq!(page.status, 200);
        assert!(page.html.contains("<html lang=\"fr\">"));
        assert!(page.html.contains("Mot de passe"));
        // The partner's name is shown, escaped.
        assert!(page.html.contains("Helpful CRM &lt;Ltd&gt;"));
        assert!(!page.html.contains("<script"));
        assert!(page.html.contains("name=\"email\"") && page.html.contains("name=\"password\""));
        assert!(page.csp.contains("default-src 'none'"));
        assert!(page.csp.contains("form-action 'self' https://crm.example"));
        let mut q = authorize_query(&s);
        q.push(("ui_locales", "it".into()));
        let page = open_page(&s, &q, Some("fr")).await;
        assert!(page.html.contains("<html lang=\"it\">"));
    }

    async fn a_post_without_the_pages_cookie_is_refused(backend) {
        let s = sso(backend).await;
        let q = authorize_query(&s);
        let mut page = open_page(&s, &q, None).await;
        page.cookie = Some("coffer_sso_browser=someone-else".into());
        let res = post_form(&s, &page, &q, "ann.example@alpine-aid.example", PASSWORD, None).await;
        assert_eq!(res.status(), 403);
        page.cookie = None;
        let res = post_form(&s, &page, &q, "ann.example@alpine-aid.example", PASSWORD, None).await;
        assert_eq!(res.status(), 403);
    }

    async fn a_wrong_password_does_not_say_whether_the_address_exists(backend) {
        let s = sso(backend).await;
        let q = authorize_query(&s);
        let page = open_page(&s, &q, None).await;
        let known = post_form(&s, &page, &q, "ann.example@alpine-aid.example", "wrong password!", None).await;
        assert_eq!(known.status(), 401);
        let known = known.text().await.unwrap();
        let unknown = post_form(&s, &page, &q, "nobody@alpine-aid.example", "wrong password!", None).await;
        assert_eq!(unknown.status(), 401);
        let unknown = unknown.text().await.unwrap();
        let message = "The e-mail address or the password is not right.";
        assert!(known.contains(message) && unknown.contains(message), "{known}");
    }
}

coffer_testkit::backend_tests! {
    async fn fifty_wrong_passwords_are_throttled_and_the_user_still_signs_in_elsewhere(backend) {
        let options = ServerOptions {
            trusted_proxies: coffer_http::TrustedProxies::parse(["127.0.0.1"]).unwrap(),
            ..Default::default()
        };
        let s = sso_with(backend, options).await;
        let q = authorize_query(&s);
        let page = open_page(&s, &q, None).await;
        let mut throttled = 0;
        for _ in 0..50 {
            let res = post_form(&s, &page, &q, "ann.example@alpine-aid.example", "guess guess guess", Some("203.0.113.66")).await;
            match res.status().as_u16() {
                401 => {}
                429 => {
                    assert!(res.headers().contains_key("retry-after"));
                    throttled += 1;
                }
                other => panic!("unexpected {other}"),
            }
        }
        assert!(throttled >= 40, "only {throttled} of 50 were throttled");
        // The attacker's network now waits even with the right password...
        let res = post_form(&s, &page, &q, "ann.example@alpine-aid.example", PASSWORD, Some("203.0.113.66")).await;
        assert_eq!(res.status(), 429);
        // ...and the real user, elsewhere, is not delayed at all.
        let res = post_form(&s, &page, &q, "ann.example@alpine-aid.example", PASSWORD, Some("198.51.100.7")).await;
        assert_eq!(res.status(), 302);
    }

    async fn wrong_passwords_sent_all_at_once_are_counted_before_they_are_checked(backend) {
        let options = ServerOptions {
            trusted_proxies: coffer_http::TrustedProxies::parse(["127.0.0.1"]).unwrap(),
            ..Default::default()
        };
        let s = std::sync::Arc::new(sso_with(backend, options).await);
        let q = authorize_query(&s);
        let page = std::sync::Arc::new(open_page(&s, &q, None).await);
        let mut sent = Vec::new();
        for _ in 0..40 {
            let (s, page, q) = (s.clone(), page.clone(), q.clone());
            sent.push(tokio::spawn(async move {
                post_form(&s, &page, &q, "ann.example@alpine-aid.example", "guess guess guess", Some("203.0.113.77"))
                    .await
                    .status()
                    .as_u16()
            }));
        }
        let mut checked = 0;
        for answer in sent {
            match answer.await.unwrap() {
                401 => checked += 1,
                429 | 503 => {}
                other => panic!("unexpected {other}"),
            }
        }
        // Five free failures, then one try after each wait (1 s, 2 s, ...): a few more
        // at most while the burst lasts, never most of the forty.
        assert!(checked <= 8, "{checked} of 40 parallel guesses were checked");
    }
}
