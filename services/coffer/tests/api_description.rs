//! The API description as the code makes it: the committed copy (docs/api/openapi.json) is
//! what the code generates, a third-party validator accepts it, and `coffer dev` serves it
//! at `/openapi.json` with its browsable reference at `/docs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Read;
use std::path::PathBuf;
use std::process::Command;

use common::COFFER;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/api/openapi.json")
}

fn generated() -> String {
    let out = Command::new(COFFER).arg("openapi").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_committed_description_is_what_the_code_generates() {
    let committed = std::fs::read_to_string(committed_path()).unwrap_or_default();
    assert!(
        committed == generated(),
        "docs/api/openapi.json differs from what the code generates: run `make openapi` \
         and commit the result"
    );
}

#[test]
fn a_third_party_validator_accepts_the_description() {
    let checkers = std::env::var("COFFER_TEST_CHECKERS").expect(
        "COFFER_TEST_CHECKERS names the checkers' bin directory (scripts/checkers.sh; \
         `make test` sets it)",
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("openapi.json");
    std::fs::write(&file, generated()).unwrap();
    let out = Command::new(PathBuf::from(checkers).join("openapi-spec-validator"))
        .arg(&file)
        .output()
        .expect("openapi-spec-validator runs");
    assert!(
        out.status.success(),
        "openapi-spec-validator refused the description:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn dev_serves_the_description_and_its_reference() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let base = c["base_url"].as_str().unwrap();
    let http = reqwest::Client::new();

    let res = http
        .get(format!("{base}/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/json");
    let served: serde_json::Value = res.json().await.unwrap();
    let made: serde_json::Value = serde_json::from_str(&generated()).unwrap();
    assert_eq!(served, made, "coffer dev serves the whole description");
    assert_eq!(served["openapi"], "3.1.0");

    let res = http.get(format!("{base}/docs/")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let page = res.text().await.unwrap();
    assert!(page.contains("swagger-ui"), "{page}");
    // Its scripts come from the binary, not from a CDN.
    assert!(
        !page.contains("https://"),
        "the page loads nothing from elsewhere: {page}"
    );
    let res = http
        .get(format!("{base}/docs/swagger-ui-bundle.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let res = http
        .get(format!("{base}/docs/swagger-initializer.js"))
        .send()
        .await
        .unwrap();
    assert!(res.text().await.unwrap().contains("/openapi.json"));
}

#[tokio::test]
async fn a_client_that_accepts_gzip_gets_it_with_the_exact_content_type() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let base = c["base_url"].as_str().unwrap();
    let token = common::demo_token(&c).await;
    let http = reqwest::Client::new();
    for path in [
        "/openapi.json",
        "/organisations",
        "/organisations/not-a-uuid",
    ] {
        let res = http
            .get(format!("{base}{path}"))
            .bearer_auth(&token)
            .header("Accept-Encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(res.headers()["content-encoding"], "gzip", "{path}");
        assert_eq!(res.headers()["content-type"], "application/json", "{path}");
        let bytes = res.bytes().await.unwrap();
        let mut body = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut body)
            .unwrap();
        let _: serde_json::Value = serde_json::from_str(&body).expect("the body is JSON");
    }
    // Without the header, the body is as it was.
    let res = http
        .get(format!("{base}/openapi.json"))
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("content-encoding").is_none());
}
