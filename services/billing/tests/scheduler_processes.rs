//! Two scheduler processes on one PostgreSQL database: the test's billing service and a
//! `coffer-billing` process of its own, both catching up the same overdue subscriptions.
//! Every charge date is invoiced once and charged once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Stdio;
use std::time::Duration;

use common::*;
use serde_json::json;

const WEEK: i64 = 7 * 86_400;

/// The other process, stopped however the test ends.
struct Other(Option<std::process::Child>);

impl Drop for Other {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_scheduler_processes_invoice_and_charge_each_date_once() {
    if !coffer_testkit::Backend::postgres_enabled() {
        return;
    }
    let brokers = std::env::var("COFFER_TEST_KAFKA_BROKERS").expect(
        "COFFER_TEST_KAFKA_BROKERS is not set; `make test` sets it after starting the broker",
    );
    let w = billing_world(coffer_testkit::Backend::Postgres).await;
    let (org, account, token) = billing_merchant(&w).await;
    let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;

    // The other process first, ready before there is anything to invoice.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let billing_db = w.app.more_database_urls()[0].clone();
    let mut other = Other(Some(
        std::process::Command::new(env!("CARGO_BIN_EXE_coffer-billing"))
            .arg("serve")
            .env("COFFER_DATABASE_URL", &billing_db)
            .env("COFFER_KAFKA__BROKERS", &brokers)
            .env(
                "COFFER_EVENTS__PREFIX",
                format!("procs{}", uuid::Uuid::new_v4().simple()),
            )
            .env("COFFER_AUTH__JWKS_URL", w.app.url("/.well-known/jwks.json"))
            .env("COFFER_HTTP__LISTEN", format!("127.0.0.1:{port}"))
            .env("COFFER_BILLING__SCHEDULER_INTERVAL_MS", "100")
            .env("COFFER_LOG__LEVEL", "warn,coffer_billing::scheduler=debug")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("coffer-billing starts"),
    ));
    let ready = format!("http://127.0.0.1:{port}/health/ready");
    let mut up = false;
    for _ in 0..600 {
        if reqwest::get(&ready)
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "the other coffer-billing process never became ready");

    // Twenty weekly subscriptions made 100 days ago (by the test service's clock), so about
    // fifteen charge dates of each are overdue by the real clock the other process keeps.
    let real_now = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap();
    w.app.clock.set_unix(real_now - 100 * 86_400);
    let token = w.token(org).await;
    let mut paths = Vec::new();
    for _ in 0..20 {
        let body = json!({"account_uuid": account, "payment_source_uuid": source, "supporter_uuid": supporter,
            "test_mode": true, "currency": "CHF", "amount": 700, "recurring_interval": "weekly", "status": "active"});
        let (status, s, _) = w.post("/subscriptions", &token, &body, None).await;
        assert_eq!(status, 201, "{s}");
        paths.push(format!(
            "/subscriptions/{}/invoices",
            s["uuid"].as_str().unwrap()
        ));
    }

    // The other process, on the real clock, has been catching them up as they came; now
    // the test's service sees the same overdue dates and joins in.
    w.app.clock.set_unix(real_now);

    let token = w.token(org).await;
    for path in &paths {
        let mut invoices = json!([]);
        for _ in 0..400 {
            invoices = w.get(path, &token).await.1;
            let all = invoices.as_array().unwrap();
            if all
                .last()
                .is_some_and(|i| i["due_date"].as_i64().unwrap() + WEEK > real_now)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let all = invoices.as_array().unwrap();
        assert!(
            all.len() >= 14,
            "about fifteen weekly dates in 100 days: {invoices}"
        );
        let dues: Vec<i64> = all
            .iter()
            .map(|i| i["due_date"].as_i64().unwrap())
            .collect();
        assert!(
            dues.windows(2).all(|p| p[1] - p[0] == WEEK),
            "each date once, none skipped: {dues:?}"
        );
        assert!(
            all.iter()
                .all(|i| i["charge_attempts"].as_array().unwrap().len() == 1),
            "one charge per invoice: {invoices}"
        );
    }

    let mut child = other.0.take().unwrap();
    assert!(
        child.try_wait().unwrap().is_none(),
        "the other scheduler process is still running"
    );
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        log.contains("billing scheduler pass"),
        "the other process invoiced some of them too:\n{log}"
    );
}
