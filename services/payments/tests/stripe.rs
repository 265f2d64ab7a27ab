//! Coffer's Stripe client and its reading of Stripe's answers, against localstripe (a
//! stateful implementation of Stripe's API that scripts/localstripe.sh starts; its address
//! is `COFFER_TEST_LOCALSTRIPE`), and through scripts/fault-proxy.py for the calls whose
//! answer never arrives. Each test makes its own objects: localstripe is never reset.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use coffer_payments::connectors::stripe::client::{
    CardDetails, DebitDetails, NewIntent, PAYMENT_METADATA, StripeClient, StripeError,
};
use coffer_payments::connectors::stripe::mapping::{self, Refusal};
use coffer_payments::connectors::stripe::objects::{IntentStatus, PaymentIntent};
use coffer_payments::shared::connector::ChargeOutcome;

fn localstripe() -> String {
    std::env::var("COFFER_TEST_LOCALSTRIPE").expect(
        "COFFER_TEST_LOCALSTRIPE is localstripe's base URL (scripts/localstripe.sh; make test sets it)",
    )
}

fn client(base: &str, timeout: Duration) -> StripeClient {
    StripeClient::new(base, "sk_test_coffer", timeout).unwrap()
}

fn card(number: &str) -> CardDetails<'_> {
    CardDetails {
        number,
        exp_month: 12,
        exp_year: 2031,
        cvc: Some("123"),
        cardholder: Some("Ada Muster"),
    }
}

fn payment() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// An unconfirmed card intent of 10.00 CHF for `payment`, charging `method` (or waiting for
/// one).
async fn intent_of(stripe: &StripeClient, payment: &str, method: Option<&str>) -> PaymentIntent {
    stripe
        .create_intent(
            &NewIntent {
                amount: 1000,
                currency: "chf",
                payment_method: method,
                payment_method_type: "card",
                customer: None,
                payment_uuid: payment,
            },
            &format!("coffer-{payment}-create"),
        )
        .await
        .unwrap()
}

/// An unconfirmed intent of 10.00 CHF on `number` for a new payment, and that payment.
async fn prepared(stripe: &StripeClient, number: &str) -> (String, String) {
    let uuid = payment();
    let method = stripe
        .create_card_method(&card(number), &format!("coffer-{uuid}-method"))
        .await
        .unwrap();
    let intent = intent_of(stripe, &uuid, Some(&method.id)).await;
    assert_eq!(intent.status, IntentStatus::RequiresConfirmation);
    assert_eq!(intent.metadata[PAYMENT_METADATA], uuid);
    assert_eq!(
        mapping::charge_outcome(&intent),
        None,
        "not confirmed, not decided"
    );
    (uuid, intent.id)
}

#[tokio::test]
async fn a_card_is_charged_once_confirmed_and_found_by_its_payment() {
    let stripe = client(&localstripe(), Duration::from_secs(10));
    let (uuid, id) = prepared(&stripe, "4242424242424242").await;
    let confirmed = stripe
        .confirm_intent(&id, &format!("coffer-{uuid}-confirm"), false)
        .await
        .unwrap();
    assert_eq!(
        mapping::charge_outcome(&confirmed),
        Some(ChargeOutcome::Succeeded {
            provider_payment_id: id.clone()
        })
    );
    let found = stripe.intents_of_payment(&uuid, 50).await.unwrap();
    assert_eq!(
        found.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
        [id.as_str()]
    );

    let refund = stripe
        .refund(&id, 300, &uuid, &format!("coffer-{uuid}-refund"))
        .await
        .unwrap();
    assert_eq!((refund.status.as_str(), refund.amount), ("succeeded", 300));
}

#[tokio::test]
async fn a_declined_card_is_a_failed_payment_with_its_reason() {
    let stripe = client(&localstripe(), Duration::from_secs(10));
    let (uuid, id) = prepared(&stripe, "4000000000000341").await;
    match stripe
        .confirm_intent(&id, &format!("coffer-{uuid}-confirm"), false)
        .await
    {
        Err(StripeError::Refused { status, error }) => {
            assert_eq!(
                mapping::refusal(status, &error),
                Refusal::Declined("card_declined".into())
            );
        }
        other => panic!("a declined card is refused, not {other:?}"),
    }
    let intent = stripe.intent(&id).await.unwrap();
    assert_eq!(
        mapping::charge_outcome(&intent),
        Some(ChargeOutcome::Failed {
            provider_payment_id: id,
            reason: "card_declined".into()
        })
    );
}

#[tokio::test]
async fn a_card_that_needs_3d_secure_leaves_the_payment_pending() {
    let stripe = client(&localstripe(), Duration::from_secs(10));
    let (uuid, id) = prepared(&stripe, "4000002500003155").await;
    let confirmed = stripe
        .confirm_intent(&id, &format!("coffer-{uuid}-confirm"), false)
        .await
        .unwrap();
    assert_eq!(confirmed.status, IntentStatus::RequiresAction);
    assert!(matches!(
        mapping::charge_outcome(&confirmed),
        Some(ChargeOutcome::Pending { .. })
    ));
    let canceled = stripe
        .cancel_intent(&id, &format!("coffer-{uuid}-cancel"))
        .await
        .unwrap();
    assert_eq!(canceled.status, IntentStatus::Canceled);
}

#[tokio::test]
async fn a_refund_of_no_intent_is_a_rejection_not_a_decline() {
    let stripe = client(&localstripe(), Duration::from_secs(10));
    let (uuid, _) = prepared(&stripe, "4242424242424242").await;
    match stripe
        .refund(
            "pi_does_not_exist",
            100,
            &uuid,
            &format!("coffer-{uuid}-refund"),
        )
        .await
    {
        Err(StripeError::Refused { status, error }) => {
            assert!(
                matches!(mapping::refusal(status, &error), Refusal::Rejected(_)),
                "{status} {error:?}"
            );
        }
        other => panic!("a refund of no intent is refused, not {other:?}"),
    }
}

/// scripts/fault-proxy.py in front of localstripe, on free ports; stopped when dropped.
struct Proxy {
    child: Child,
    base: String,
    control: String,
}

impl Proxy {
    fn start() -> Self {
        Self::recording(None)
    }

    /// With `record`, the proxy writes each request's parameter names (never values) there.
    fn recording(record: Option<&std::path::Path>) -> Self {
        let upstream = localstripe();
        let upstream = upstream.trim_start_matches("http://").trim_end_matches('/');
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/fault-proxy.py");
        let mut args = vec![
            script.to_owned(),
            "127.0.0.1:0".into(),
            upstream.to_owned(),
            "127.0.0.1:0".into(),
        ];
        args.extend(record.map(|r| r.display().to_string()));
        let mut child = Command::new("python3")
            .args(&args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs scripts/fault-proxy.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let ports: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("fault-proxy.py printed {line:?}: {e}"));
        Self {
            child,
            base: format!("http://127.0.0.1:{}", ports["listen"]),
            control: format!("http://127.0.0.1:{}/fault", ports["control"]),
        }
    }

    async fn set(&self, fault: serde_json::Value) {
        let answer = reqwest::Client::new()
            .put(&self.control)
            .json(&fault)
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "the proxy took {fault}");
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn a_confirm_whose_answer_is_lost_is_settled_by_asking_for_the_intent() {
    let proxy = Proxy::start();
    let stripe = client(&proxy.base, Duration::from_secs(10));
    let (uuid, id) = prepared(&stripe, "4242424242424242").await;
    proxy
        .set(serde_json::json!({"fault": "reset", "times": 1}))
        .await;
    let lost = stripe
        .confirm_intent(&id, &format!("coffer-{uuid}-confirm"), false)
        .await;
    assert!(matches!(lost, Err(StripeError::Unreachable(_))), "{lost:?}");
    // The confirm reached Stripe: the intent says what happened.
    let intent = stripe.intent(&id).await.unwrap();
    assert_eq!(
        mapping::charge_outcome(&intent),
        Some(ChargeOutcome::Succeeded {
            provider_payment_id: id
        })
    );
}

#[tokio::test]
async fn a_provider_that_hangs_or_fails_is_an_unknown_outcome() {
    let proxy = Proxy::start();
    let stripe = client(&proxy.base, Duration::from_millis(800));
    let (uuid, id) = prepared(&stripe, "4242424242424242").await;

    proxy
        .set(serde_json::json!({"fault": "hang", "times": 1}))
        .await;
    let hung = stripe
        .confirm_intent(&id, &format!("coffer-{uuid}-confirm"), false)
        .await;
    assert!(matches!(hung, Err(StripeError::Timeout)), "{hung:?}");

    for status in [500, 429] {
        proxy
            .set(serde_json::json!({"fault": "status", "status": status, "times": 1}))
            .await;
        match stripe
            .confirm_intent(&id, &format!("coffer-{uuid}-confirm"), false)
            .await
        {
            Err(StripeError::Refused { status: got, error }) => {
                assert_eq!(got, status);
                assert_eq!(mapping::refusal(got, &error), Refusal::Unknown);
            }
            other => panic!("{status} is a refusal, not {other:?}"),
        }
    }

    proxy.set(serde_json::json!({"fault": "refuse"})).await;
    let refused = stripe.intent(&id).await;
    assert!(
        matches!(refused, Err(StripeError::Unreachable(_))),
        "{refused:?}"
    );
    proxy.set(serde_json::json!({"fault": "pass"})).await;
    // The hang never reached Stripe, and the 5xx and 429 were the proxy's: still unconfirmed.
    assert_eq!(
        stripe.intent(&id).await.unwrap().status,
        IntentStatus::RequiresConfirmation
    );
}

fn check_stripe_params(record: &std::path::Path) -> std::process::Output {
    let checkers = std::env::var("COFFER_TEST_CHECKERS")
        .expect("COFFER_TEST_CHECKERS names the checkers' bin directory (scripts/checkers.sh; make test sets it)");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/check-stripe-params.py"
    );
    Command::new(format!("{checkers}/python"))
        .args([script, &record.display().to_string()])
        .output()
        .expect("the checkers' python runs scripts/check-stripe-params.py")
}

#[tokio::test]
async fn every_request_is_one_stripes_own_sdk_types_accept() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("requests.jsonl");
    let proxy = Proxy::recording(Some(&record));
    let stripe = client(&proxy.base, Duration::from_secs(10));
    // Every call the client makes, once.
    let (uuid, id) = prepared(&stripe, "4242424242424242").await;
    stripe
        .confirm_intent(&id, &format!("coffer-{uuid}-confirm"), false)
        .await
        .unwrap();
    stripe.intent(&id).await.unwrap();
    stripe.intents_of_payment(&uuid, 1).await.unwrap();
    stripe
        .refund(&id, 100, &uuid, &format!("coffer-{uuid}-refund"))
        .await
        .unwrap();
    let (uuid, id) = prepared(&stripe, "4242424242424242").await;
    stripe
        .cancel_intent(&id, &format!("coffer-{uuid}-cancel"))
        .await
        .unwrap();
    // A card the donor enters on the payment page: the intent made without one, then given
    // the card's PaymentMethod, made from the token Stripe's browser script made (which
    // localstripe refuses, test_server.rs; the request is checked all the same).
    let uuid = payment();
    let open = intent_of(&stripe, &uuid, None).await;
    assert_eq!(open.status, IntentStatus::RequiresPaymentMethod);
    let (read, secret) = stripe.intent_with_secret(&open.id).await.unwrap();
    assert_eq!(read.id, open.id);
    assert!(secret.starts_with(&format!("{}_secret_", open.id)));
    assert!(
        stripe
            .card_method_from_token("tok_visa", "coffer-x-method-tok_visa")
            .await
            .is_err()
    );
    assert!(stripe.token("tok_visa").await.is_err());
    let method = stripe
        .create_card_method(&card("4242424242424242"), &format!("coffer-{uuid}-method"))
        .await
        .unwrap();
    let given = stripe
        .set_payment_method(&open.id, &method.id, &format!("coffer-{uuid}-card"))
        .await
        .unwrap();
    assert_eq!(given.status, IntentStatus::RequiresConfirmation);
    // Stripe's one confirmation with the card, which localstripe answers 500 (test_server.rs).
    assert!(
        stripe
            .confirm_with_method(&open.id, &method.id, &format!("coffer-{uuid}-confirm"))
            .await
            .is_err()
    );
    // A SEPA direct debit: the bank account, and the confirmation with the merchant's
    // mandate, which localstripe refuses (test_server.rs).
    let debit = stripe
        .create_debit_method(
            &DebitDetails {
                iban: "DE89370400440532013000",
                holder: "Ada Muster",
                email: "ada@example.org",
            },
            &format!("coffer-{uuid}-debit"),
        )
        .await
        .unwrap();
    assert!(debit.id.starts_with("pm_"));
    assert!(
        stripe
            .confirm_debit(&open.id, &format!("coffer-{uuid}-debit-confirm"), true)
            .await
            .is_err()
    );
    // A payment source: a Customer, a SetupIntent confirmed with the card (and, for a
    // debit, the mandate localstripe refuses), one cancelled; then a charge without the
    // donor, whose `off_session` localstripe refuses on a confirmation (test_server.rs).
    let customer = stripe
        .create_customer(&uuid, &format!("coffer-{uuid}-customer"))
        .await
        .unwrap();
    let setup = stripe
        .create_setup(&customer.id, "card", &uuid, &format!("coffer-{uuid}-setup"))
        .await
        .unwrap();
    stripe
        .confirm_setup(
            &setup.id,
            &method.id,
            false,
            &format!("coffer-{uuid}-setup-confirm"),
        )
        .await
        .unwrap();
    let debit_setup = stripe
        .create_setup(
            &customer.id,
            "sepa_debit",
            &uuid,
            &format!("coffer-{uuid}-setup-2"),
        )
        .await
        .unwrap();
    assert!(
        stripe
            .confirm_setup(
                &debit_setup.id,
                &debit.id,
                true,
                &format!("coffer-{uuid}-setup-2-confirm")
            )
            .await
            .is_err()
    );
    stripe
        .cancel_setup(&debit_setup.id, &format!("coffer-{uuid}-setup-2-cancel"))
        .await
        .unwrap();
    let (uuid, id) = prepared(&stripe, "4242424242424242").await;
    assert!(
        stripe
            .confirm_intent(&id, &format!("coffer-{uuid}-confirm"), true)
            .await
            .is_err()
    );
    drop(proxy);

    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(
        !recorded.contains("4242") && !recorded.contains("532013000"),
        "the record holds no card number or IBAN"
    );
    let checked = check_stripe_params(&record);
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(String::from_utf8_lossy(&checked.stdout).contains("27 requests, 0 problems"));

    // And the checker does refuse what Stripe would: a misspelt name, a number as text.
    let wrong = dir.path().join("wrong.jsonl");
    std::fs::write(
        &wrong,
        r#"{"method":"POST","path":"/v1/payment_intents","params":{"amount":"text","descripton":"text"}}"#,
    )
    .unwrap();
    let refused = check_stripe_params(&wrong);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("has no descripton") && said.contains("amount: a text value"),
        "{said}"
    );
}
