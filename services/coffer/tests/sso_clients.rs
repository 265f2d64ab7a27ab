//! Single sign-on against `coffer dev` by clients Coffer did not write: Authlib (PyPI) runs
//! a partner's whole authorization-code flow with PKCE and validates the ID token, and
//! headless Chromium signs a person in through the login page. Both are run from the
//! checkers' venv (scripts/checkers.sh) and Debian's Chromium (scripts/chromium.sh).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const PASSWORD: &str = "correct horse battery";

fn checkers() -> PathBuf {
    PathBuf::from(
        std::env::var("COFFER_TEST_CHECKERS")
            .expect("COFFER_TEST_CHECKERS names the checkers' venv (scripts/checkers.sh)"),
    )
}

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sso")
        .join(name)
}

/// A partner with `redirect_uri` and a user of the demo organisation.
fn partner_and_user(dir: &std::path::Path, c: &Value, redirect_uri: &str, email: &str) -> Value {
    let partner = common::admin(
        dir,
        &[
            "partner",
            "create",
            "--name",
            "Helpful CRM",
            "--redirect-uri",
            redirect_uri,
        ],
    );
    let user = common::admin(
        dir,
        &[
            "user",
            "create",
            "--email",
            email,
            "--password",
            PASSWORD,
            "--name",
            "Ann Example",
            "--organisation",
            c["organisation_uuid"].as_str().unwrap(),
        ],
    );
    assert_eq!(user["has_password"], true);
    assert!(user.get("password").is_none() && user.get("password_hash").is_none());
    partner
}

fn run(program: PathBuf, args: &[&str]) -> Value {
    let out = Command::new(program).args(args).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap()
}

#[tokio::test]
async fn authlib_signs_a_user_in_with_pkce_and_validates_the_id_token() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let base = c["base_url"].as_str().unwrap().to_owned();
    let redirect = format!("http://127.0.0.1:{}/sso/callback", common::free_port());
    let partner = partner_and_user(dir.path(), &c, &redirect, "ann@alpine-aid.example");
    let python = checkers().join("python");
    let flow = script("authlib_flow.py");
    let report = tokio::task::spawn_blocking(move || {
        run(
            python,
            &[
                flow.to_str().unwrap(),
                &base,
                partner["client_id"].as_str().unwrap(),
                partner["client_secret"].as_str().unwrap(),
                &redirect,
                "ann@alpine-aid.example",
                PASSWORD,
            ],
        )
    })
    .await
    .unwrap();
    assert_eq!(report["claims"]["email"], "ann@alpine-aid.example");
    assert_eq!(report["claims"]["name"], "Ann Example");
    assert_eq!(report["expires_in"], 0);
    assert_eq!(report["reused_code"], "invalid_grant");
    assert_eq!(report["wrong_state"], "MismatchingStateException");
    assert_eq!(report["wrong_redirect_uri"], "invalid_grant");
    assert_eq!(report["wrong_verifier"], "invalid_grant");
    assert_eq!(report["wrong_client_secret"], "invalid_client");
}

/// The screenshot of the login page is kept as an artifact (target/tmp/artifacts/login.png).
#[tokio::test]
async fn chromium_signs_a_person_in_through_the_login_page() {
    let chromium = std::env::var("COFFER_TEST_CHROMIUM")
        .expect("COFFER_TEST_CHROMIUM names Chromium (scripts/chromium.sh; `make test` sets it)");
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let base = c["base_url"].as_str().unwrap().to_owned();
    let port = common::free_port();
    let redirect = format!("http://127.0.0.1:{port}/sso/callback");
    let partner = partner_and_user(dir.path(), &c, &redirect, "ann@alpine-aid.example");
    let authorize = format!(
        "{base}/oauth2/authorize?{}",
        serde_urlencoded_pairs(&[
            ("client_id", partner["client_id"].as_str().unwrap()),
            ("redirect_uri", &redirect),
            ("response_type", "code"),
            ("scope", "openid email"),
            ("state", "browser-state-1"),
            ("ui_locales", "de"),
        ])
    );
    let artifacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let screenshot = artifacts.join("login.png");
    let _ = std::fs::remove_file(&screenshot);
    let python = checkers().join("python");
    let login = script("browser_login.py");
    let shot = screenshot.clone();
    let report = tokio::task::spawn_blocking(move || {
        run(
            python,
            &[
                login.to_str().unwrap(),
                &chromium,
                &authorize,
                &port.to_string(),
                "ann@alpine-aid.example",
                PASSWORD,
                shot.to_str().unwrap(),
            ],
        )
    })
    .await
    .unwrap();
    assert_eq!(report["lang"], "de");
    assert_eq!(report["scripts"], 0, "the page runs no script");
    assert_eq!(report["landed"]["state"], "browser-state-1");
    let code = report["landed"]["code"].as_str().unwrap();
    assert!(code.len() >= 40, "{code}");
    let png = std::fs::read(&screenshot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG"));
    // The code the browser brought is good for the partner's tokens.
    let res = reqwest::Client::new()
        .post(format!("{}/oauth2/token", c["base_url"].as_str().unwrap()))
        .basic_auth(
            partner["client_id"].as_str().unwrap(),
            partner["client_secret"].as_str(),
        )
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", &redirect),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let tokens: Value = res.json().await.unwrap();
    assert!(tokens["id_token"].as_str().unwrap().split('.').count() == 3);
}

fn serde_urlencoded_pairs(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}
