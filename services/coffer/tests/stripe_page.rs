//! The donor's payment page through `coffer dev` and headless Chromium (COFFER_TEST_CHROMIUM),
//! checked with axe-core (COFFER_TEST_AXE): a card that asks for 3-D Secure leaves its payment
//! pending with `action.url` on Coffer's page, which loads localstripe's own browser script
//! under a strict Content-Security-Policy; the donor confirms or fails the bank's challenge
//! there, and the payment ends as the provider says, with one PaymentIntent at localstripe.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod stripe;

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use stripe::*;

/// localstripe's card that asks for 3-D Secure on every payment.
const THREE_D_SECURE: &str = "4000002500003155";

fn env(name: &str, how: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is {how} (make test sets it)"))
}

/// A donor on `page` in Chromium, entering `card` first when there is one, then answering
/// the bank's challenge with `choice` (`complete` or `fail`, or `none` when no challenge
/// comes); the merchant's return URL listens on `return_port`.
async fn donor(page: &str, choice: &str, return_port: u16, card: Option<&str>) -> Value {
    let python = PathBuf::from(env(
        "COFFER_TEST_CHECKERS",
        "the checkers' venv (scripts/checkers.sh)",
    ))
    .join("python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/stripe/donor_page.py");
    let mut args = vec![
        script.to_owned(),
        env("COFFER_TEST_CHROMIUM", "Chromium (scripts/chromium.sh)"),
        env("COFFER_TEST_AXE", "axe-core's axe.min.js (scripts/axe.sh)"),
        page.to_owned(),
        choice.to_owned(),
        return_port.to_string(),
    ];
    args.extend(card.map(str::to_owned));
    tokio::task::spawn_blocking(move || {
        let out = Command::new(python).args(&args).output().expect("runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&stdout).unwrap()
    })
    .await
    .unwrap()
}

/// A 3-D Secure card payment in `locale`, sent back to `return_url` when there is one.
async fn waiting_payment(coffer: &Coffer, locale: &str, return_url: Option<&str>) -> Value {
    let body = coffer.payment("card_stripe", THREE_D_SECURE, 3300);
    sent_to_the_page(coffer, body, locale, return_url).await
}

/// The payment `body` asks for, in `locale` and back to `return_url` if any: pending, with
/// `action.url` on Coffer's page.
async fn sent_to_the_page(
    coffer: &Coffer,
    mut body: Value,
    locale: &str,
    return_url: Option<&str>,
) -> Value {
    body["locale"] = json!(locale);
    if let Some(url) = return_url {
        body["return_url"] = json!(url);
    }
    let (status, pending) = coffer.post("/payments", &body).await;
    assert_eq!(status, 201, "{pending}");
    assert_eq!(pending["status"], "pending", "{pending}");
    let uuid = pending["uuid"].as_str().unwrap();
    assert_eq!(
        pending["action"]["url"],
        format!("{}/pay/{uuid}", coffer.base),
        "{pending}"
    );
    pending
}

#[tokio::test(flavor = "multi_thread")]
async fn a_donor_confirms_3d_secure_on_coffers_page_and_goes_back_to_the_merchant() {
    let coffer = coffer_set(&localstripe(), None, Some(PUBLISHABLE_KEY)).await;
    let port = common::free_port();
    let return_url = format!("http://127.0.0.1:{port}/thanks");
    let pending = waiting_payment(&coffer, "de_CH", Some(&return_url)).await;
    let uuid = pending["uuid"].as_str().unwrap();
    let page = pending["action"]["url"].as_str().unwrap();

    // The page as a browser gets it: a policy naming only Coffer and the provider.
    let res = reqwest::get(page).await.unwrap();
    assert_eq!(res.status(), 200);
    let csp = res.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(
        csp.contains(&format!("script-src 'self' {}", localstripe())),
        "{csp}"
    );
    assert!(!csp.contains("script-src 'self' 'unsafe-inline'"), "{csp}");
    assert_eq!(res.headers()["cache-control"], "no-store");
    let html = res.text().await.unwrap();
    assert!(
        !html.contains(THREE_D_SECURE),
        "the page shows the card number"
    );

    let report = donor(page, "complete", port, None).await;
    assert_eq!(report["lang"], "de", "{report}");
    assert_eq!(report["title"], "Zahlung bestätigen", "{report}");
    assert_eq!(report["inline_scripts"], 0, "{report}");
    assert_eq!(report["axe_page"], json!([]), "{report}");
    assert_eq!(
        report["refused"],
        json!([]),
        "the policy refused something: {report}"
    );
    assert_eq!(report["landed"]["payment_uuid"], uuid, "{report}");
    assert_eq!(report["landed"]["status"], "succeeded", "{report}");

    let payment = coffer.get(&format!("/payments/{uuid}")).await;
    assert_eq!(payment["status"], "succeeded", "{payment}");
    assert_eq!(payment["action"], Value::Null, "{payment}");
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "succeeded");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_donor_who_fails_3d_secure_is_told_in_their_language_and_nothing_is_charged() {
    let coffer = coffer_set(&localstripe(), None, Some(PUBLISHABLE_KEY)).await;
    let pending = waiting_payment(&coffer, "fr_CH", None).await;
    let uuid = pending["uuid"].as_str().unwrap();
    let page = pending["action"]["url"].as_str().unwrap();

    let report = donor(page, "fail", common::free_port(), None).await;
    assert_eq!(report["lang"], "fr", "{report}");
    assert_eq!(report["axe_page"], json!([]), "{report}");
    assert_eq!(report["landed"], json!({}), "{report}");
    assert_eq!(report["outcome"], "Paiement refusé", "{report}");
    assert_eq!(report["outcome_lang"], "fr", "{report}");
    assert_eq!(report["axe_outcome"], json!([]), "{report}");
    assert_eq!(report["refused"], json!([]), "{report}");

    let payment = coffer.get(&format!("/payments/{uuid}")).await;
    assert_eq!(payment["status"], "failed", "{payment}");
    assert_eq!(
        payment["status_reason"], "authentication_failed",
        "{payment}"
    );
    // Closed at Stripe before Coffer said it failed: nobody can finish it later.
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "canceled", "{intents:?}");

    // Someone else's uuid, or one of the test provider, has no page here.
    let nobody = format!("{}/pay/{}", coffer.base, uuid::Uuid::new_v4());
    assert_eq!(reqwest::get(nobody).await.unwrap().status(), 404);
    let (_, test_payment) = coffer
        .post(
            "/payments",
            &coffer.payment("card_test", "4242424242424242", 1200),
        )
        .await;
    let test_page = format!(
        "{}/pay/{}",
        coffer.base,
        test_payment["uuid"].as_str().unwrap()
    );
    assert_eq!(reqwest::get(test_page).await.unwrap().status(), 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_donor_who_never_finishes_is_given_up_on_and_the_charge_closed_at_stripe() {
    // The shortest wait allowed: the settler's delay.
    let coffer = coffer_waiting(&localstripe(), None, Some(PUBLISHABLE_KEY), SETTLE_AFTER_MS).await;
    let pending = waiting_payment(&coffer, "it_CH", None).await;
    let uuid = pending["uuid"].as_str().unwrap();
    // While it waits, it cannot be cancelled: the donor could still finish at Stripe.
    let (status, refused) = coffer
        .post(&format!("/payments/{uuid}/cancel"), &json!({}))
        .await;
    assert_eq!(status, 400, "{refused}");

    // Given up once it has waited the wait, at the settler's next look (every settle_after),
    // however often its custom parameters change meanwhile.
    let mut ended = Value::Null;
    for round in 0..400 {
        ended = coffer.get(&format!("/payments/{uuid}")).await;
        if ended["status"] != "pending" {
            break;
        }
        if round % 20 == 0 {
            let changed = coffer
                .http
                .put(format!("{}/payments/{uuid}/custom-parameters", coffer.base))
                .bearer_auth(&coffer.token)
                .json(&json!({ "round": round }))
                .send()
                .await
                .unwrap();
            assert!(changed.status().is_success(), "{}", changed.status());
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(ended["status"], "failed", "{ended}");
    assert_eq!(
        ended["status_reason"], "authentication_abandoned",
        "{ended}"
    );
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "canceled", "{intents:?}");
    // The page now says how it ended, in Italian.
    let page = reqwest::get(pending["action"]["url"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Pagamento rifiutato"));
}

/// A card payment asked for without card data, in `locale`: pending, with `action.url` on
/// Coffer's page, where the donor enters the card.
async fn payment_without_card(coffer: &Coffer, locale: &str, return_url: Option<&str>) -> Value {
    let mut body = coffer.payment("card_stripe", "4242424242424242", 4500);
    body.as_object_mut().unwrap().remove("payment_information");
    let pending = sent_to_the_page(coffer, body, locale, return_url).await;
    assert_eq!(pending["payment_information"], json!({}), "{pending}");
    pending
}

#[tokio::test(flavor = "multi_thread")]
async fn a_donor_enters_their_card_on_coffers_page_and_only_a_token_reaches_coffer() {
    let coffer = coffer_set(&localstripe(), None, Some(PUBLISHABLE_KEY)).await;
    let pending = payment_without_card(&coffer, "en_GB", None).await;
    let uuid = pending["uuid"].as_str().unwrap();
    let page = pending["action"]["url"].as_str().unwrap();
    // One PaymentIntent, waiting for its card.
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "requires_payment_method");

    let html = reqwest::get(page).await.unwrap().text().await.unwrap();
    assert!(html.contains("Pay by card"), "{html}");
    assert!(
        !html.contains("_secret_"),
        "the card page holds a client secret: {html}"
    );

    let report = donor(page, "none", common::free_port(), Some("4242424242424242")).await;
    assert_eq!(report["card_page"]["lang"], "en", "{report}");
    assert_eq!(report["card_page"]["inline_scripts"], 0, "{report}");
    assert_eq!(report["axe_card_page"], json!([]), "{report}");
    assert_eq!(report["outcome"], "Thank you", "{report}");
    assert_eq!(report["axe_outcome"], json!([]), "{report}");
    assert_eq!(
        report["refused"],
        json!([]),
        "the policy refused something: {report}"
    );

    let payment = coffer.get(&format!("/payments/{uuid}")).await;
    assert_eq!(payment["status"], "succeeded", "{payment}");
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "succeeded", "{intents:?}");

    // The form takes a token and nothing else; a second one changes nothing.
    let card = format!("{}/pay/{uuid}/card", coffer.base);
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let raw = no_redirects
        .post(&card)
        .form(&[("token", "4242424242424242")])
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 400);
    let refused: Value = raw.json().await.unwrap();
    assert!(refused.to_string().contains("token"), "{refused}");
    assert!(
        !refused.to_string().contains("4242424242424242"),
        "{refused}"
    );
    let again = no_redirects
        .post(&card)
        .form(&[("token", "tok_another")])
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 204);
    assert_eq!(
        coffer.get(&format!("/payments/{uuid}")).await["status"],
        "succeeded"
    );
    assert_eq!(intents_at(&localstripe(), uuid).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_entered_on_the_page_that_asks_for_3d_secure_is_confirmed_there_too() {
    let coffer = coffer_set(&localstripe(), None, Some(PUBLISHABLE_KEY)).await;
    let port = common::free_port();
    let return_url = format!("http://127.0.0.1:{port}/thanks");
    let pending = payment_without_card(&coffer, "de_CH", Some(&return_url)).await;
    let uuid = pending["uuid"].as_str().unwrap();
    let page = pending["action"]["url"].as_str().unwrap();

    let report = donor(page, "complete", port, Some(THREE_D_SECURE)).await;
    assert_eq!(
        report["card_page"]["title"], "Mit Karte bezahlen",
        "{report}"
    );
    assert_eq!(report["axe_card_page"], json!([]), "{report}");
    assert_eq!(report["title"], "Zahlung bestätigen", "{report}");
    assert_eq!(report["axe_page"], json!([]), "{report}");
    assert_eq!(report["refused"], json!([]), "{report}");
    assert_eq!(report["landed"]["payment_uuid"], uuid, "{report}");
    assert_eq!(report["landed"]["status"], "succeeded", "{report}");
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(confirmed(&intents).len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "succeeded", "{intents:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declined_card_entered_on_the_page_fails_the_payment_and_closes_the_intent() {
    let coffer = coffer_set(&localstripe(), None, Some(PUBLISHABLE_KEY)).await;
    let pending = payment_without_card(&coffer, "it_CH", None).await;
    let uuid = pending["uuid"].as_str().unwrap();
    let page = pending["action"]["url"].as_str().unwrap();

    let report = donor(page, "none", common::free_port(), Some("4000000000000341")).await;
    assert_eq!(report["card_page"]["lang"], "it", "{report}");
    assert_eq!(report["outcome"], "Pagamento rifiutato", "{report}");
    assert_eq!(report["axe_outcome"], json!([]), "{report}");

    let payment = coffer.get(&format!("/payments/{uuid}")).await;
    assert_eq!(payment["status"], "failed", "{payment}");
    assert_eq!(payment["status_reason"], "card_declined", "{payment}");
    let intents = intents_at(&localstripe(), uuid).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "canceled", "{intents:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_page_to_send_the_donor_to_a_card_payment_needs_its_card() {
    // No publishable key: nowhere for the donor to enter a card.
    let coffer = coffer_set(&localstripe(), None, None).await;
    let mut body = coffer.payment("card_stripe", "4242424242424242", 4500);
    body.as_object_mut().unwrap().remove("payment_information");
    let (status, refused) = coffer.post("/payments", &body).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("payment_information"),
        "{refused}"
    );
    // Nor does the test provider, which has no such page.
    body["profile"] = json!("card_test");
    let (status, refused) = coffer.post("/payments", &body).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("payment_information"),
        "{refused}"
    );
}
