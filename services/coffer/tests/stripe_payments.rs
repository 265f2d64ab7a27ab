//! Payments through Stripe as an operator sets them up and a client makes them: `coffer
//! dev` against localstripe (scripts/localstripe.sh, `COFFER_TEST_LOCALSTRIPE`), a test
//! connector account and a card profile set with `coffer admin`, then POST /payments and
//! its refunds through the API. Every scenario is checked at localstripe too: one
//! PaymentIntent per payment, charged at most once. Through scripts/fault-proxy.py, answers
//! that never arrive are settled by the settler, never by a second charge.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{COFFER, Server};
use serde_json::{Value, json};

/// Any test key: localstripe takes every key as one account.
const KEY: &str = "sk_test_51HcofferStripeE2EKey0000000001";
const LIVE_KEY: &str = "sk_live_51HcofferStripeE2EKey0000000001";
/// The settler's delay in these tests: long enough for a charge's three calls.
const SETTLE_AFTER_MS: &str = "7000";
const TIMEOUT_MS: &str = "2000";

fn localstripe() -> String {
    std::env::var("COFFER_TEST_LOCALSTRIPE").expect(
        "COFFER_TEST_LOCALSTRIPE is localstripe's base URL (scripts/localstripe.sh; make test sets it)",
    )
}

/// scripts/fault-proxy.py between Coffer and localstripe, on free ports.
struct Proxy {
    child: Child,
    listen: String,
    control: String,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn proxy() -> Proxy {
    let upstream = localstripe();
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
    async fn set(&self, fault: Value) {
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
struct Coffer {
    server: Server,
    dir: tempfile::TempDir,
    stripe_api: String,
    base: String,
    account: String,
    token: String,
    http: reqwest::Client,
}

fn admin_with_stdin(dir: &Path, args: &[&str], stdin: &str) -> Value {
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
fn set_connector_account(dir: &Path, account: &str, name: &str, mode: &str, key: &str) -> Value {
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
fn set_profile(dir: &Path, account: &str, name: &str, connector_account: &str) -> Value {
    let args = [
        "profile",
        "set",
        "--account",
        account,
        "--name",
        name,
        "--connector-account",
        connector_account,
    ];
    admin_with_stdin(dir, &args, "")
}

/// `coffer dev` on `dir`, reaching Stripe at `stripe_api`.
fn start(dir: &Path, stripe_api: &str) -> Server {
    common::start_with(
        dir,
        &[
            ("COFFER_PAYMENTS__STRIPE_API", stripe_api),
            ("COFFER_PAYMENTS__SETTLE_AFTER_MS", SETTLE_AFTER_MS),
            ("COFFER_PAYMENTS__CONNECTOR_TIMEOUT_MS", TIMEOUT_MS),
        ],
    )
}

async fn coffer(stripe_api: &str) -> Coffer {
    let dir = tempfile::tempdir().unwrap();
    let mut server = start(dir.path(), stripe_api);
    let c = common::credentials(dir.path(), &mut server).await;
    let account = c["account_uuids"][0].as_str().unwrap().to_owned();
    let set = set_connector_account(dir.path(), &account, "main", "test", KEY);
    assert_eq!(set["mode"], "test");
    let profile = set_profile(dir.path(), &account, "card_stripe", "main");
    assert_eq!(profile["provider"], "stripe");
    assert_eq!(profile["test_mode"], true);
    assert_eq!(profile["connector_account_uuid"], set["uuid"]);
    Coffer {
        base: c["base_url"].as_str().unwrap().to_owned(),
        token: common::demo_token(&c).await,
        account,
        server,
        dir,
        stripe_api: stripe_api.to_owned(),
        http: reqwest::Client::new(),
    }
}

fn card(number: &str) -> Value {
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
    async fn killed_and_restarted(&mut self) {
        self.server.0.kill().unwrap();
        self.server.0.wait().unwrap();
        self.server = start(self.dir.path(), &self.stripe_api);
        let c = common::credentials(self.dir.path(), &mut self.server).await;
        self.base = c["base_url"].as_str().unwrap().to_owned();
        self.token = common::demo_token(&c).await;
    }

    fn payment(&self, profile: &str, number: &str, value: i64) -> Value {
        json!({
            "account_uuid": self.account,
            "payment_method": "card",
            "profile": profile,
            "amount": { "value": value, "currency": "EUR" },
            "payment_information": card(number),
        })
    }

    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
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

    async fn get(&self, path: &str) -> Value {
        let (status, body) = common::get(&self.base, path, &self.token).await;
        assert_eq!(status, 200, "{path}: {body}");
        body
    }

    /// The payment once it is no longer pending, asked (bounded) as a client polls.
    async fn settled(&self, uuid: &str) -> Value {
        for _ in 0..200 {
            let payment = self.get(&format!("/payments/{uuid}")).await;
            if payment["status"] != "pending" {
                return payment;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("payment {uuid} stayed pending");
    }
}

/// localstripe's view: every PaymentIntent whose metadata names the payment.
async fn intents_of(payment: &str) -> Vec<Value> {
    let mut found = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut url = format!("{}/v1/payment_intents?limit=100", localstripe());
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
fn confirmed(intents: &[Value]) -> Vec<&Value> {
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

#[tokio::test(flavor = "multi_thread")]
async fn a_card_payment_goes_through_stripe_and_is_refunded_there() {
    let coffer = coffer(&localstripe()).await;
    let (status, paid) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 2500),
        )
        .await;
    assert_eq!(status, 201, "{paid}");
    assert_eq!(paid["status"], "succeeded", "{paid}");
    assert_eq!(paid["payment_provider"], "stripe");
    assert_eq!(paid["test_mode"], true);
    let uuid = paid["uuid"].as_str().unwrap();
    let intent_id = paid["provider_payment_id"].as_str().unwrap();
    assert!(intent_id.starts_with("pi_"), "{paid}");

    let intents = intents_of(uuid).await;
    assert_eq!(
        intents.len(),
        1,
        "one PaymentIntent per payment: {intents:?}"
    );
    assert_eq!(intents[0]["id"], intent_id);
    assert_eq!(intents[0]["status"], "succeeded");
    assert_eq!(intents[0]["amount"], 2500);
    assert_eq!(intents[0]["currency"], "eur");

    // Part, then the rest: each once at Stripe.
    let (status, part) = coffer
        .post(
            &format!("/payments/{uuid}/refunds"),
            &json!({ "amount": { "value": 1000, "currency": "EUR" } }),
        )
        .await;
    assert_eq!(status, 200, "{part}");
    assert_eq!(part["status"], "succeeded", "{part}");
    let (status, rest) = coffer
        .post(&format!("/payments/{uuid}/refunds"), &json!({}))
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["amount"]["value"], "1500");
    let refunds: Value = reqwest::Client::new()
        .get(format!(
            "{}/v1/refunds?payment_intent={intent_id}",
            localstripe()
        ))
        .basic_auth(KEY, Some(""))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut amounts: Vec<i64> = refunds["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["amount"].as_i64().unwrap())
        .collect();
    amounts.sort_unstable();
    assert_eq!(amounts, [1000, 1500]);
    let payment = coffer.get(&format!("/payments/{uuid}")).await;
    assert_eq!(payment["refunded_amount"]["value"], "2500", "{payment}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declined_card_fails_with_stripes_reason_and_charges_nothing() {
    let coffer = coffer(&localstripe()).await;
    let (status, failed) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4000000000000341", 2500),
        )
        .await;
    assert_eq!(status, 201, "{failed}");
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["status_reason"], "card_declined");
    let intents = intents_of(failed["uuid"].as_str().unwrap()).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_ne!(intents[0]["status"], "succeeded");
}

#[tokio::test(flavor = "multi_thread")]
async fn what_stripe_would_refuse_is_refused_before_any_call() {
    let coffer = coffer(&localstripe()).await;
    // Below Stripe's minimum charge for EUR (50 cents).
    let (status, refused) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 49),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused.to_string().contains("amount"), "{refused}");
    // Sources are not kept through Stripe yet: said, never silently made at the test
    // provider.
    let mut keep = coffer.payment("card_stripe", "4242424242424242", 2500);
    keep["create_payment_source"] = json!(true);
    let (status, refused) = coffer.post("/payments", &keep).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("create_payment_source"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_live_profile_takes_no_card_numbers_unless_stripe_allowed_them() {
    let coffer = coffer(&localstripe()).await;
    let dir = coffer.dir.path();
    set_connector_account(dir, &coffer.account, "live", "live", LIVE_KEY);
    let live = set_profile(dir, &coffer.account, "card_live", "live");
    assert_eq!(live["test_mode"], false);
    // Requests for the default would charge real money through it: only when asked.
    assert_eq!(live["is_default"], false, "{live}");
    let args = [
        "profile",
        "set",
        "--account",
        &coffer.account,
        "--name",
        "card_live",
        "--connector-account",
        "live",
        "--default",
    ];
    let live = admin_with_stdin(dir, &args, "");
    assert_eq!(live["is_default"], true, "{live}");
    // A profile keeps the connector account its payments were made through.
    let moved = Command::new(COFFER)
        .arg("admin")
        .arg("--data-dir")
        .arg(dir)
        .args(["profile", "set", "--account", &coffer.account])
        .args(["--name", "card_live", "--connector-account", "main"])
        .output()
        .unwrap();
    assert!(!moved.status.success());
    assert!(
        String::from_utf8_lossy(&moved.stderr).contains("keeps its connector account"),
        "{}",
        String::from_utf8_lossy(&moved.stderr)
    );
    let (status, refused) = coffer
        .post(
            "/payments",
            &coffer.payment("card_live", "4242424242424242", 2500),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("payment_information"),
        "{refused}"
    );
    // The profiles list shows both modes side by side, each with its default.
    let profiles = coffer
        .get(&format!(
            "/payment-method-profiles?account_uuid={}",
            coffer.account
        ))
        .await;
    let card_defaults: Vec<(&str, bool)> = profiles
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["payment_method"] == "card" && p["is_default"] == true)
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["test_mode"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(card_defaults.len(), 2, "{profiles}");
    assert!(card_defaults.contains(&("card_live", false)), "{profiles}");
    // The default of the method is the live one: a request for it is refused card data.
    let mut by_default = coffer.payment("default", "4242424242424242", 2500);
    by_default["profile"] = json!("default");
    let (status, refused) = coffer.post("/payments", &by_default).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("payment_information"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_that_asks_for_3d_secure_fails_until_the_donor_has_a_page() {
    let coffer = coffer(&localstripe()).await;
    let (status, failed) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4000002500003155", 2500),
        )
        .await;
    assert_eq!(status, 201, "{failed}");
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["status_reason"], "authentication_required");
    let intents = intents_of(failed["uuid"].as_str().unwrap()).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(
        intents[0]["status"], "canceled",
        "no one can charge it later: {intents:?}"
    );
}

/// A card payment of `value` made while the proxy shows `fault`, once it is pending, then
/// as the settler leaves it, with localstripe's PaymentIntents for it.
async fn settled_after(fault: Value, value: i64) -> (Value, Vec<Value>) {
    let proxy = proxy();
    let coffer = coffer(&proxy.listen).await;
    proxy.set(fault).await;
    let (status, pending) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", value),
        )
        .await;
    assert_eq!(status, 201, "{pending}");
    assert_eq!(pending["status"], "pending", "{pending}");
    let uuid = pending["uuid"].as_str().unwrap();
    let settled = coffer.settled(uuid).await;
    (settled, intents_of(uuid).await)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_confirmation_whose_answer_is_lost_is_settled_by_reading_the_intent() {
    // Stripe confirms (and charges); the answer never reaches Coffer.
    let fault = json!({ "fault": "reset", "times": 1, "match": "/confirm" });
    let (settled, intents) = settled_after(fault, 3100).await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    assert_eq!(confirmed(&intents).len(), 1, "charged once: {intents:?}");
    assert_eq!(settled["provider_payment_id"], confirmed(&intents)[0]["id"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_create_whose_answer_is_lost_is_cancelled_and_the_payment_fails() {
    // Stripe makes the PaymentIntent; Coffer never learns its id, so it never confirms.
    let fault = json!({ "fault": "reset", "times": 1, "match": "/v1/payment_intents" });
    let (settled, intents) = settled_after(fault, 3200).await;
    assert_eq!(settled["status"], "failed", "{settled}");
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(
        intents[0]["status"], "canceled",
        "found and cancelled: {intents:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_that_is_slow_hangs_fails_or_is_gone_charges_nothing_twice() {
    let proxy = proxy();
    let coffer = coffer(&proxy.listen).await;
    // Slower than the connector's timeout: Stripe confirmed, the answer came too late.
    proxy
        .set(json!({ "fault": "slow", "delay_ms": 4000, "times": 1, "match": "/confirm" }))
        .await;
    let (_, slow) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 3300),
        )
        .await;
    assert_eq!(slow["status"], "pending", "{slow}");
    // Hanging on the confirmation, which never reached Stripe.
    proxy
        .set(json!({ "fault": "hang", "times": 1, "match": "/confirm" }))
        .await;
    let (_, hung) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 3350),
        )
        .await;
    assert_eq!(hung["status"], "pending", "{hung}");
    // A 500 on the confirmation: Stripe may or may not have acted (here it did not).
    proxy
        .set(json!({ "fault": "status", "status": 500, "times": 1, "match": "/confirm" }))
        .await;
    let (_, errored) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 3400),
        )
        .await;
    assert_eq!(errored["status"], "pending", "{errored}");
    // Gone altogether: nothing was made, and the payment fails once the settler hears so.
    proxy.set(json!({ "fault": "refuse" })).await;
    let (status, unreached) = coffer
        .post(
            "/payments",
            &coffer.payment("card_stripe", "4242424242424242", 3500),
        )
        .await;
    assert_eq!(status, 201, "{unreached}");
    assert_eq!(unreached["status"], "pending", "{unreached}");
    proxy.set(json!({ "fault": "pass" })).await;

    for (payment, status, charged) in [
        (&slow, "succeeded", 1),
        (&hung, "failed", 0),
        (&errored, "failed", 0),
        (&unreached, "failed", 0),
    ] {
        let uuid = payment["uuid"].as_str().unwrap();
        let now = coffer.settled(uuid).await;
        assert_eq!(now["status"], status, "{now}");
        let intents = intents_of(uuid).await;
        assert_eq!(confirmed(&intents).len(), charged, "{now}: {intents:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_between_the_confirmation_and_its_commit_the_charge_is_settled_once() {
    let proxy = proxy();
    let mut coffer = coffer(&proxy.listen).await;
    // Stripe confirms at once; its answer is held, and Coffer is killed while it waits.
    proxy
        .set(json!({ "fault": "slow", "delay_ms": 1500, "times": 1, "match": "/confirm" }))
        .await;
    let body = coffer.payment("card_stripe", "4242424242424242", 3600);
    let (base, token) = (coffer.base.clone(), coffer.token.clone());
    let asked = tokio::spawn(async move {
        reqwest::Client::new()
            .post(format!("{base}/payments"))
            .bearer_auth(token)
            .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
            .json(&body)
            .send()
            .await
    });
    let stats = format!("{}/stats", proxy.control);
    for _ in 0..100 {
        let seen: Value = reqwest::get(&stats).await.unwrap().json().await.unwrap();
        if seen["faulted"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    coffer.killed_and_restarted().await;
    assert!(asked.await.unwrap().is_err(), "the client heard no answer");

    // The restarted Coffer holds the payment pending, and its settler finds the charge.
    let (status, found) = coffer
        .post(
            "/search/payments",
            &json!({ "query": { "$match": { "account_uuid": coffer.account } } }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{found}");
    let uuid = hits[0]["uuid"].as_str().unwrap().to_owned();
    let settled = coffer.settled(&uuid).await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    let intents = intents_of(&uuid).await;
    assert_eq!(confirmed(&intents).len(), 1, "charged once: {intents:?}");
}
