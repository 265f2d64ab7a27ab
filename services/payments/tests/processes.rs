//! `coffer-payments` processes on the test's PostgreSQL database, killed at each step of a
//! charge (after the provider's call and before the commit, after the commit, in the middle
//! of a call that hangs) or racing one another with one Idempotency-Key. Every scenario
//! ends with exactly one charge at the provider (its book, by key) and one payment.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

/// A payments process, killed however the test ends.
struct Process {
    child: Option<Child>,
    url: String,
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Process {
    /// Starts `coffer-payments serve` on the world's payments database, showing `fault`.
    async fn start(w: &World, fault: &str, timeout_ms: u64) -> Process {
        let brokers = std::env::var("COFFER_TEST_KAFKA_BROKERS").expect(
            "COFFER_TEST_KAFKA_BROKERS is not set; `make test` sets it after starting the broker",
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // Held at once, so the process is stopped however the wait below ends.
        let process = Process {
            url: format!("http://127.0.0.1:{port}"),
            child: Some(
                Command::new(env!("CARGO_BIN_EXE_coffer-payments"))
                    .arg("serve")
                    .env("COFFER_DATABASE_URL", &w.app.more_database_urls()[0])
                    .env("COFFER_KAFKA__BROKERS", brokers)
                    .env(
                        "COFFER_EVENTS__PREFIX",
                        format!("procs{}", uuid::Uuid::new_v4().simple()),
                    )
                    .env("COFFER_AUTH__JWKS_URL", w.app.url("/.well-known/jwks.json"))
                    .env("COFFER_HTTP__LISTEN", format!("127.0.0.1:{port}"))
                    .env(
                        "COFFER_PAYMENTS__PUBLIC_BASE_URL",
                        format!("http://127.0.0.1:{port}"),
                    )
                    .env(
                        "COFFER_PAYMENTS__FINGERPRINT_KEY",
                        "0123456789abcdef0123456789abcdef",
                    )
                    .env("COFFER_PAYMENTS__TEST_PSP_FAULT", fault)
                    .env(
                        "COFFER_PAYMENTS__CONNECTOR_TIMEOUT_MS",
                        timeout_ms.to_string(),
                    )
                    .env(
                        "COFFER_PAYMENTS__SETTLE_AFTER_MS",
                        (3 * timeout_ms + 1000).to_string(),
                    )
                    .env(
                        "COFFER_SECRETS__KEYS",
                        "test:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
                    )
                    .env("COFFER_LOG__LEVEL", "warn")
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("coffer-payments starts"),
            ),
        };
        for _ in 0..600 {
            if reqwest::get(format!("{}/health/ready", process.url))
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                return process;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("coffer-payments never became ready");
    }

    /// Waits for the process to end by itself (an abort), and says how it ended.
    async fn ended(&mut self) -> std::process::ExitStatus {
        let child = self.child.as_mut().unwrap();
        for _ in 0..200 {
            if let Some(status) = child.try_wait().unwrap() {
                self.child = None;
                return status;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the process did not stop at its fault");
    }

    fn kill_9(&mut self) {
        let mut child = self.child.take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

fn card_payment(account: &str) -> Value {
    json!({
        "account_uuid": account,
        "payment_method": "card",
        "amount": {"value": "4200", "currency": "CHF"},
        "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"},
    })
}

async fn pay(
    base: &str,
    token: &str,
    account: &str,
    key: &str,
) -> Result<(u16, Value), reqwest::Error> {
    let res = reqwest::Client::new()
        .post(format!("{base}/payments"))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(&card_payment(account))
        .send()
        .await?;
    let status = res.status().as_u16();
    Ok((status, res.json().await?))
}

/// The world on the real clock (the processes keep it), with a merchant.
async fn real_world() -> Option<(World, String, String)> {
    if !Backend::postgres_enabled() {
        return None;
    }
    let w = world(Backend::Postgres).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    w.app.clock.set_unix(i64::try_from(now).unwrap());
    let (_, account, token) = merchant(&w).await;
    Some((w, account, token))
}

/// Lets the test's own payments service settle what the processes left unanswered.
async fn settled(w: &World, token: &str, uuid: &str) -> Value {
    w.app.clock.advance(time::Duration::seconds(120));
    for _ in 0..400 {
        let (_, p) = w.get(&format!("/payments/{uuid}"), token).await;
        if p["status"] != "pending" {
            return p;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("payment {uuid} was never settled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_after_the_call_before_the_commit_the_charge_is_settled_not_repeated() {
    let Some((w, account, token)) = real_world().await else {
        return;
    };
    let mut dying = Process::start(&w, "abort_after_call", 2000).await;
    assert!(
        pay(&dying.url, &token, &account, "k-1").await.is_err(),
        "the process died mid-request"
    );
    assert!(!dying.ended().await.success());
    let booked = w.provider_book("charge").await;
    assert_eq!(
        booked.len(),
        1,
        "the provider charged before the process died"
    );
    let uuid = booked[0].idempotency_key.clone();

    // The client retries on a fresh process: it learns of the payment, and nothing is charged.
    let fresh = Process::start(&w, "", 2000).await;
    let (status, retried) = pay(&fresh.url, &token, &account, "k-1").await.unwrap();
    assert_eq!(
        (status, retried["uuid"].as_str()),
        (201, Some(uuid.as_str())),
        "{retried}"
    );
    let done = settled(&w, &token, &uuid).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let booked = w.provider_book("charge").await;
    assert_eq!(
        (booked.len(), booked[0].requests),
        (1, 1),
        "settled by asking, not by charging again"
    );
    assert_eq!(w.payments_of(&token, &account).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_after_the_commit_the_retry_gets_the_first_answer() {
    let Some((w, account, token)) = real_world().await else {
        return;
    };
    let mut dying = Process::start(&w, "abort_after_commit", 2000).await;
    assert!(pay(&dying.url, &token, &account, "k-2").await.is_err());
    assert!(!dying.ended().await.success());
    let fresh = Process::start(&w, "", 2000).await;
    let (status, retried) = pay(&fresh.url, &token, &account, "k-2").await.unwrap();
    assert_eq!(status, 201);
    assert_eq!(
        retried["status"], "succeeded",
        "the outcome was committed before the process died"
    );
    let booked = w.provider_book("charge").await;
    assert_eq!((booked.len(), booked[0].requests), (1, 1));
    assert_eq!(booked[0].idempotency_key, retried["uuid"].as_str().unwrap());
    assert_eq!(w.payments_of(&token, &account).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_with_9_while_the_provider_hangs_the_charge_is_settled_once() {
    let Some((w, account, token)) = real_world().await else {
        return;
    };
    let mut hanging = Process::start(&w, "hang_after_call", 60_000).await;
    let (base, t, a) = (hanging.url.clone(), token.clone(), account.clone());
    let request = tokio::spawn(async move { pay(&base, &t, &a, "k-3").await });
    let mut booked = Vec::new();
    for _ in 0..200 {
        booked = w.provider_book("charge").await;
        if !booked.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(booked.len(), 1, "the provider was reached");
    hanging.kill_9();
    assert!(request.await.unwrap().is_err());
    let done = settled(&w, &token, &booked[0].idempotency_key).await;
    assert_eq!(done["status"], "succeeded");
    let booked = w.provider_book("charge").await;
    assert_eq!((booked.len(), booked[0].requests), (1, 1));
    assert_eq!(w.payments_of(&token, &account).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_given_one_key_make_one_payment_and_one_charge() {
    let Some((w, account, token)) = real_world().await else {
        return;
    };
    let (one, two) = (
        Process::start(&w, "", 2000).await,
        Process::start(&w, "", 2000).await,
    );
    let mut requests = Vec::new();
    for i in 0..16 {
        let base = if i % 2 == 0 {
            one.url.clone()
        } else {
            two.url.clone()
        };
        let (t, a) = (token.clone(), account.clone());
        requests.push(tokio::spawn(async move {
            pay(&base, &t, &a, "k-4").await.unwrap()
        }));
    }
    let mut uuids = Vec::new();
    for r in requests {
        let (status, p) = r.await.unwrap();
        assert!(status == 201 || status == 409, "{status} {p}");
        if status == 201 {
            uuids.push(p["uuid"].as_str().unwrap().to_owned());
        }
    }
    uuids.sort();
    uuids.dedup();
    assert_eq!(uuids.len(), 1, "{uuids:?}");
    let booked = w.provider_book("charge").await;
    assert_eq!((booked.len(), booked[0].requests), (1, 1));
    assert_eq!(w.payments_of(&token, &account).await.len(), 1);
}
