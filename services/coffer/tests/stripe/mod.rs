//! What the tests of payments through Stripe share: `coffer dev` against localstripe
//! (scripts/localstripe.sh), a test connector account and a card profile set with `coffer
//! admin`, scripts/fault-proxy.py in between, and localstripe's own view of a payment.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{self, COFFER, Server};

/// Any test key: localstripe takes every key as one account.
pub const KEY: &str = "sk_test_51HcofferStripeE2EKey0000000001";
pub const LIVE_KEY: &str = "sk_live_51HcofferStripeE2EKey0000000001";
/// The settler's delay in these tests: long enough for a charge's three calls.
pub const SETTLE_AFTER_MS: &str = "7000";
pub const TIMEOUT_MS: &str = "2000";

pub fn localstripe() -> String {
    std::env::var("COFFER_TEST_LOCALSTRIPE").expect(
        "COFFER_TEST_LOCALSTRIPE is localstripe's base URL (scripts/localstripe.sh; make test sets it)",
    )
}

/// scripts/fault-proxy.py between Coffer and localstripe, on free ports.
pub struct Proxy {
    pub child: Child,
    pub listen: String,
    pub control: String,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The proxy in front of localstripe at `upstream` (its base URL).
pub fn proxy_to(upstream: &str) -> Proxy {
    let upstream = upstream.trim_start_matches("http://");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/fault-proxy.py");
    let mut child = Command::new("python3")
        .args([script, "127.0.0.1:0", upstream, "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the fault proxy starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let ports: Value = serde_json::from_str(&line).expect("the proxy reports its ports");
    Proxy {
        listen: format!("http://127.0.0.1:{}", ports["listen"]),
        control: format!("http://127.0.0.1:{}", ports["control"]),
        child,
    }
}

impl Proxy {
    pub async fn set(&self, fault: Value) {
        let res = reqwest::Client::new()
            .put(format!("{}/fault", self.control))
            .json(&fault)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
}

/// `coffer dev` reaching Stripe at `stripe_api`, with one test connector account ("main")
/// and its card profile `card_stripe` set on the demo account.
pub struct Coffer {
    pub server: Server,
    pub dir: tempfile::TempDir,
    pub stripe_api: String,
    pub base: String,
    pub account: String,
    pub connector_account: String,
    pub token: String,
    pub http: reqwest::Client,
}

pub fn admin_with_stdin(dir: &Path, args: &[&str], stdin: &str) -> Value {
    let mut child = Command::new(COFFER)
        .arg("admin")
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env_remove("COFFER_SECRETS__KEYS")
        .env_remove("COFFER_SECRETS__CURRENT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "coffer admin {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `coffer admin connector-account set` of a Stripe account `name` with `key`.
pub fn set_connector_account(
    dir: &Path,
    account: &str,
    name: &str,
    mode: &str,
    key: &str,
) -> Value {
    let args = [
        "connector-account",
        "set",
        "--account",
        account,
        "--name",
        name,
        "--mode",
        mode,
    ];
    admin_with_stdin(dir, &args, &format!("{key}\n"))
}

/// `coffer admin profile set` of a card profile `name` served by `connector_account`.
pub fn set_profile(dir: &Path, account: &str, name: &str, connector_account: &str) -> Value {
    set_profile_of(dir, account, name, connector_account, "card")
}

/// `coffer admin profile set` of a `method` profile `name` served by `connector_account`.
pub fn set_profile_of(
    dir: &Path,
    account: &str,
    name: &str,
    connector_account: &str,
    method: &str,
) -> Value {
    let args = [
        "profile",
        "set",
        "--account",
        account,
        "--name",
        name,
        "--connector-account",
        connector_account,
        "--method",
        method,
    ];
    admin_with_stdin(dir, &args, "")
}

/// `coffer dev` on `dir`, reaching Stripe at `stripe_api`.
pub fn start(dir: &Path, stripe_api: &str) -> Server {
    start_waiting(dir, stripe_api, "3600000")
}

/// [`start`], a donor given `donor_wait_ms` on the provider's challenge.
pub fn start_waiting(dir: &Path, stripe_api: &str, donor_wait_ms: &str) -> Server {
    common::start_with(
        dir,
        &[
            ("COFFER_PAYMENTS__STRIPE_API", stripe_api),
            ("COFFER_PAYMENTS__SETTLE_AFTER_MS", SETTLE_AFTER_MS),
            ("COFFER_PAYMENTS__CONNECTOR_TIMEOUT_MS", TIMEOUT_MS),
            ("COFFER_PAYMENTS__DONOR_WAIT_MS", donor_wait_ms),
        ],
    )
}

pub async fn coffer(stripe_api: &str) -> Coffer {
    coffer_with(stripe_api, None).await
}

/// [`coffer`], its connector account given `webhook_secret` when there is one.
pub async fn coffer_with(stripe_api: &str, webhook_secret: Option<&str>) -> Coffer {
    coffer_set(stripe_api, webhook_secret, None).await
}

/// [`coffer`], with a SEPA direct debit profile `sepa_stripe` on the same connector account,
/// set before the account's profiles are first read (they are kept 30 seconds).
pub async fn coffer_with_debits(stripe_api: &str) -> Coffer {
    let coffer = coffer(stripe_api).await;
    let profile = set_profile_of(
        coffer.dir.path(),
        &coffer.account,
        "sepa_stripe",
        "main",
        "sepa_dd",
    );
    assert_eq!(profile["payment_method"], "sepa_dd", "{profile}");
    assert_eq!(profile["provider"], "stripe", "{profile}");
    coffer
}

/// A publishable key: localstripe takes any `pk_` key for the browser's calls.
pub const PUBLISHABLE_KEY: &str = "pk_test_51HcofferStripeE2EKey0000000001";

/// [`coffer_with`], the connector account given `publishable_key` too (the payment page).
pub async fn coffer_set(
    stripe_api: &str,
    webhook_secret: Option<&str>,
    publishable_key: Option<&str>,
) -> Coffer {
    coffer_waiting(stripe_api, webhook_secret, publishable_key, "3600000").await
}

/// [`coffer_set`], a donor given `donor_wait_ms` on the provider's challenge.
pub async fn coffer_waiting(
    stripe_api: &str,
    webhook_secret: Option<&str>,
    publishable_key: Option<&str>,
    donor_wait_ms: &str,
) -> Coffer {
    let dir = tempfile::tempdir().unwrap();
    let mut server = start_waiting(dir.path(), stripe_api, donor_wait_ms);
    let c = common::credentials(dir.path(), &mut server).await;
    let account = c["account_uuids"][0].as_str().unwrap().to_owned();
    let secrets = format!("{KEY}\n{}\n", webhook_secret.unwrap_or_default());
    let mut args = vec![
        "connector-account",
        "set",
        "--account",
        &account,
        "--name",
        "main",
        "--mode",
        "test",
    ];
    if let Some(key) = publishable_key {
        args.extend(["--publishable-key", key]);
    }
    let set = admin_with_stdin(dir.path(), &args, &secrets);
    assert_eq!(set["mode"], "test");
    let profile = set_profile(dir.path(), &account, "card_stripe", "main");
    assert_eq!(profile["provider"], "stripe");
    assert_eq!(profile["test_mode"], true);
    assert_eq!(profile["connector_account_uuid"], set["uuid"]);
    Coffer {
        connector_account: set["uuid"].as_str().unwrap().to_owned(),
        base: c["base_url"].as_str().unwrap().to_owned(),
        token: common::demo_token(&c).await,
        account,
        server,
        dir,
        stripe_api: stripe_api.to_owned(),
        http: reqwest::Client::new(),
    }
}

pub fn card(number: &str) -> Value {
    json!({
        "number": number,
        "expiry_month": 12,
        "expiry_year": 2031,
        "cvv": "123",
        "cardholder": "Ada Lovelace"
    })
}

impl Coffer {
    /// Kills the server with SIGKILL, whatever it was doing, and starts it again on the
    /// same data.
    pub async fn killed_and_restarted(&mut self) {
        self.server.0.kill().unwrap();
        self.server.0.wait().unwrap();
        self.server = start(self.dir.path(), &self.stripe_api);
        let c = common::credentials(self.dir.path(), &mut self.server).await;
        self.base = c["base_url"].as_str().unwrap().to_owned();
        self.token = common::demo_token(&c).await;
    }

    pub fn payment(&self, profile: &str, number: &str, value: i64) -> Value {
        json!({
            "account_uuid": self.account,
            "payment_method": "card",
            "profile": profile,
            "amount": { "value": value, "currency": "EUR" },
            "payment_information": card(number),
        })
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let res = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
            .json(body)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        for secret in ["4242424242424242", "4000000000000341", KEY] {
            assert!(!text.contains(secret), "an answer shows {secret}: {text}");
        }
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> Value {
        let (status, body) = common::get(&self.base, path, &self.token).await;
        assert_eq!(status, 200, "{path}: {body}");
        body
    }

    /// The payment once it is no longer pending, asked (bounded, longer than the bank
    /// worker's first look: two `settle_after`s) as a client polls.
    pub async fn settled(&self, uuid: &str) -> Value {
        for _ in 0..400 {
            let payment = self.get(&format!("/payments/{uuid}")).await;
            if payment["status"] != "pending" {
                return payment;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("payment {uuid} stayed pending");
    }
}

/// localstripe's view (at `api`): every PaymentIntent whose metadata names the payment.
pub async fn intents_at(api: &str, payment: &str) -> Vec<Value> {
    let mut found = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut url = format!("{api}/v1/payment_intents?limit=100");
        if let Some(last) = &after {
            url.push_str(&format!("&starting_after={last}"));
        }
        let page: Value = reqwest::Client::new()
            .get(url)
            .basic_auth(KEY, Some(""))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let data = page["data"].as_array().unwrap();
        after = data.last().map(|i| i["id"].as_str().unwrap().to_owned());
        found.extend(
            data.iter()
                .filter(|i| i["metadata"]["coffer_payment_uuid"] == payment)
                .cloned(),
        );
        if page["has_more"] != true || after.is_none() {
            return found;
        }
    }
}

/// Of a payment's intents, those that left `requires_confirmation` (were confirmed).
pub fn confirmed(intents: &[Value]) -> Vec<&Value> {
    intents
        .iter()
        .filter(|i| {
            !matches!(
                i["status"].as_str(),
                Some("requires_confirmation" | "canceled")
            )
        })
        .collect()
}
