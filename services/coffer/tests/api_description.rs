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

/// A client follows the description from what creates an object to every operation on
/// it: each 201 links to every operation under `<path>/{id}` (not nested further), by an
/// operationId that exists, giving each of its path parameters.
#[test]
fn every_created_object_links_to_the_operations_on_it() {
    let doc: serde_json::Value = serde_json::from_str(&generated()).unwrap();
    let paths = doc["paths"].as_object().unwrap();
    let mut by_id = std::collections::BTreeMap::new();
    for (path, item) in paths {
        for op in item.as_object().unwrap().values() {
            by_id.insert(op["operationId"].as_str().unwrap().to_owned(), path.clone());
        }
    }
    let mut linked = 0;
    for (path, item) in paths {
        let Some(links) = item["post"]["responses"]["201"].get("links") else {
            continue;
        };
        let links = links.as_object().unwrap();
        for (other, other_item) in paths {
            let Some(rest) = other.strip_prefix(&format!("{path}/{{")) else {
                continue;
            };
            if rest.contains('{') {
                continue; // nested further: its own creation links to it
            }
            for op in other_item.as_object().unwrap().values() {
                let id = op["operationId"].as_str().unwrap();
                assert!(
                    links.contains_key(id),
                    "{path} does not link to {id} ({rest})"
                );
            }
        }
        for (name, link) in links {
            let id = link["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{path}: {name}: {link}"));
            let target = &by_id[id];
            for segment in target.split('/') {
                if let Some(param) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    assert!(
                        link["parameters"].get(param).is_some(),
                        "{path} links to {id} without {param}"
                    );
                }
            }
            linked += 1;
        }
    }
    assert!(linked >= 25, "only {linked} links");
}

/// Every request body shows one example, its own or its type's.
#[test]
fn every_request_body_has_an_example() {
    let doc: serde_json::Value = serde_json::from_str(&generated()).unwrap();
    let schemas = &doc["components"]["schemas"];
    let has = |v: &serde_json::Value| v.get("example").is_some() || v.get("examples").is_some();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(content) = op["requestBody"]["content"].as_object() else {
                continue;
            };
            for (kind, body) in content {
                let schema = &body["schema"];
                let named = schema["$ref"]
                    .as_str()
                    .or_else(|| schema["oneOf"][1]["$ref"].as_str())
                    .and_then(|r| r.rsplit('/').next());
                let typed = named.is_some_and(|name| has(&schemas[name]));
                assert!(
                    has(body) || typed,
                    "{method} {path} ({kind}) shows no example"
                );
            }
        }
    }
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
    assert_eq!(
        served["info"]["version"], "1.0.0",
        "the interface's version, as SPEC.md states it"
    );

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

/// Headless Chromium opens `/docs` as a person would and finds every operation listed; the
/// screenshot is kept as an artifact (target/tmp/artifacts/docs.png).
#[tokio::test]
async fn a_browser_finds_every_operation_in_the_reference() {
    let chromium = std::env::var("COFFER_TEST_CHROMIUM")
        .expect("COFFER_TEST_CHROMIUM names Chromium (scripts/chromium.sh; `make test` sets it)");
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let url = format!("{}/docs/", c["base_url"].as_str().unwrap());
    let artifacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let screenshot = artifacts.join("docs.png");
    let _ = std::fs::remove_file(&screenshot);
    let browse = |extra: &[&str]| {
        let profile = tempfile::tempdir().unwrap();
        let out = Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                // Time for the page's scripts to fetch the description and draw it.
                "--virtual-time-budget=15000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg(&url)
            .output()
            .expect("Chromium runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let dom = browse(&["--dump-dom"]);
    let described: serde_json::Value = serde_json::from_str(&generated()).unwrap();
    let mut listed = 0;
    for (path, item) in described["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap();
            let tag = op["tags"][0].as_str().unwrap().replace(' ', "_");
            assert!(
                dom.contains(&format!("id=\"operations-{tag}-{id}\"")),
                "{method} {path} ({id}) is not listed at /docs"
            );
            listed += 1;
        }
    }
    assert!(listed >= 51, "only {listed} operations described");
    browse(&[
        "--window-size=1280,4000",
        &format!("--screenshot={}", screenshot.display()),
    ]);
    let png = std::fs::read(&screenshot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG"), "the screenshot is a PNG");
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
