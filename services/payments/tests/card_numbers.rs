//! Card numbers and CVVs never reach a table, an event or a log line: every flow that takes
//! a card runs with logging at its most verbose, then the database files (payments,
//! identity, the event bus, with their write-ahead logs) and the log are searched for them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::json;

const NUMBERS: [&str; 5] = [
    "4242424242424242",
    "4000000000000002",
    "4000000000009995",
    "4000000000003220",
    "4000000000000341",
];
const CVV: &str = "7319";
const IBAN: &str = "CH9300762011623852957";

/// Everything logged, kept for the search.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// The process's log, captured at its most verbose from the first test that asks (each
/// test runs in a process of its own under nextest, but not under `cargo test`), with a
/// line per request (`log.requests`, off by default) so that those are searched too.
fn captured_log() -> Captured {
    static LOG: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        coffer_http::telemetry::log_requests(true);
        let log = Captured::default();
        let writer = log.clone();
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || writer.clone())
            .init();
        log
    })
    .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_card_number_cvv_or_iban_is_stored_or_logged() {
    let log = captured_log();

    let w = world(Backend::Sqlite).await;
    let (_, account, token) = merchant(&w).await;
    let mut events = subscribe(&w, "payment_gateway").await;
    let card = |number: &str| {
        json!({"account_uuid": account, "payment_method": "card", "amount": {"value": "500", "currency": "CHF"},
            "payment_information": {"number": number, "expiry_month": 12, "expiry_year": 2030, "cvv": CVV},
            "create_payment_source": true, "return_url": "https://charity.example/thanks"})
    };
    for (i, number) in NUMBERS.iter().copied().enumerate() {
        let (status, paid, _) = w
            .post(
                "/payments",
                &token,
                &card(number),
                Some(&format!("key-{i}")),
            )
            .await;
        assert_eq!(status, 201, "{paid}");
        if paid["status"] == "pending" {
            press(&w, &paid, "approve").await;
        }
        let (status, source, _) = w
            .post("/payment-sources", &token, &card(number), None)
            .await;
        assert_eq!(status, 201, "{source}");
    }
    let debit = json!({"account_uuid": account, "payment_method": "sepa_dd", "amount": {"value": "500", "currency": "EUR"},
        "payment_information": {"iban": IBAN, "account_holder": "Ada Lovelace"}, "create_payment_source": true});
    assert_eq!(w.post("/payments", &token, &debit, None).await.0, 201);
    // A rejected card is logged as an error at most, never with its number.
    let mut expired = card("4242424242424242");
    expired["payment_information"]["expiry_year"] = json!(2020);
    assert_eq!(w.post("/payments", &token, &expired, None).await.0, 400);
    // The events are on the bus (in its database file) before the files are read.
    next_named(&mut events, "coffer.event.payment_gateway.payment.failed").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let files = w.app.database_files();
    assert!(
        files.len() >= 3,
        "payments, identity and bus databases: {files:?}"
    );
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        for secret in NUMBERS.iter().copied().chain([IBAN]) {
            assert!(
                !contains(&bytes, secret),
                "{secret} found in {}",
                file.display()
            );
        }
        assert!(
            !contains(&bytes, &format!("\"cvv\":\"{CVV}\"")),
            "a CVV in {}",
            file.display()
        );
    }
    // What may be kept is there, so the search above did read the stored data.
    assert!(
        files
            .iter()
            .any(|f| contains(&std::fs::read(f).unwrap(), "\"last4\":\"4242\"")),
        "the masked card is stored"
    );
    let logged = log.0.lock().unwrap().clone();
    assert!(
        contains(&logged, "/payments"),
        "requests were logged ({} bytes)",
        logged.len()
    );
    for secret in NUMBERS.iter().copied().chain([IBAN]) {
        assert!(!contains(&logged, secret), "{secret} in the log");
    }
    // Four digits alone turn up in ids and timings; the CVV would be quoted or named.
    for form in [format!("\"{CVV}\""), "cvv".to_owned()] {
        let at = logged
            .windows(form.len())
            .position(|w| w == form.as_bytes());
        assert!(
            at.is_none(),
            "{form} in the log: {}",
            String::from_utf8_lossy(
                &logged[at.unwrap_or(0).saturating_sub(200)
                    ..(at.unwrap_or(0) + 200).min(logged.len())]
            )
        );
    }
}

/// The digest a plain SHA-256 of the request would give (method, path, body): what an
/// Idempotency-Key's row would hold if it kept the card's digits recoverable.
fn plain_request_digest(path: &str, body: &serde_json::Value) -> String {
    let mut input = format!("POST {path}\n").into_bytes();
    input.extend(serde_json::to_vec(body).unwrap());
    aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &input)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_data_sent_in_any_shape_is_never_answered_stored_or_logged() {
    let log = captured_log();
    let w = world(Backend::Sqlite).await;
    let (_, account, token) = merchant(&w).await;
    const PAN: &str = "4111111111111111";
    const CVV: &str = "8462";
    let pan: u64 = PAN.parse().unwrap();
    let cvv: u64 = CVV.parse().unwrap();
    // Every shape a card number or CVV might come in but the right one, in every field
    // of a card, and in place of the card itself.
    let mut infos = Vec::new();
    for (field, digits, number) in [("number", PAN, pan), ("cvv", CVV, cvv)] {
        for shape in [
            json!(number),
            json!(number as f64),
            json!(format!("{number}.0").parse::<f64>().unwrap()),
            json!([digits]),
            json!([number]),
            json!({"value": digits}),
            json!({"value": number}),
            json!(true),
        ] {
            let mut info = json!({"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"});
            info[field] = shape;
            infos.push((format!("payment_information.{field}"), info));
        }
    }
    for field in ["expiry_month", "expiry_year", "cardholder", "brand"] {
        for shape in [json!(PAN), json!(pan), json!(pan as f64), json!([PAN])] {
            if (field == "cardholder" || field == "brand") && shape.is_string() {
                continue; // a name is free text: the donor's to fill in
            }
            let mut info = json!({"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"});
            info[field] = shape;
            infos.push((format!("payment_information.{field}"), info));
        }
    }
    for whole in [json!(PAN), json!(pan), json!([PAN]), json!(pan as f64)] {
        infos.push(("payment_information".to_owned(), whole));
    }
    let mut answers = String::new();
    let mut digests = Vec::new();
    for (i, (property, info)) in infos.iter().enumerate() {
        for path in ["/payments", "/payment-sources"] {
            let body = json!({"account_uuid": account, "payment_method": "card",
                "amount": {"value": "500", "currency": "CHF"}, "payment_information": info});
            let key = format!("shape-{i}-{path}");
            let (status, err, _) = w.post(path, &token, &body, Some(&key)).await;
            assert_eq!(status, 400, "{path} {info}: {err}");
            let named: Vec<&str> = err["errors"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|e| e["property"].as_str())
                .collect();
            assert!(
                named.contains(&property.as_str()),
                "{path} {info} names {named:?}"
            );
            answers.push_str(&err.to_string());
        }
    }
    // A card number beside the card: in another field of the request, or in the supporter.
    let good = json!({"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"});
    for (extra, property) in [
        (json!({"locale": pan}), "locale"),
        (json!({"return_url": pan}), "return_url"),
        (
            json!({"supporter": {"first_name": pan}}),
            "supporter.first_name",
        ),
        (json!({"supporter": {"uuid": pan}}), "supporter.uuid"),
        (
            json!({"supporter": {"email_permission": pan}}),
            "supporter.email_permission",
        ),
    ] {
        let mut body = json!({"account_uuid": account, "payment_method": "card",
            "amount": {"value": "500", "currency": "CHF"}, "payment_information": good});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, err, _) = w.post("/payments", &token, &body, None).await;
        assert_eq!(status, 400, "{body}: {err}");
        let named: Vec<&str> = err["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["property"].as_str())
            .collect();
        assert_eq!(named, [property], "{err}");
        answers.push_str(&err.to_string());
    }
    // A card put in the supporter is no property of a supporter: dropped, not kept.
    let body = json!({"account_uuid": account, "payment_method": "card",
        "amount": {"value": "500", "currency": "CHF"}, "payment_information": good,
        "supporter": {"first_name": "Ada", "card": {"number": PAN, "cvv": CVV}}});
    let (status, paid, _) = w.post("/payments", &token, &body, None).await;
    assert_eq!(status, 201, "{paid}");
    assert_eq!(paid["supporter"], json!({"first_name": "Ada"}), "{paid}");
    answers.push_str(&paid.to_string());
    // A card number as a key the client chose: an error names where it is, not what.
    let mut body = json!({"account_uuid": account, "payment_method": "card",
        "amount": {"value": "500", "currency": "CHF"}, "payment_information": good});
    body["supporter"] = json!({"custom_parameters": {PAN: {"nested": 1}}});
    let (status, err, _) = w.post("/payments", &token, &body, None).await;
    assert_eq!(status, 400, "{err}");
    answers.push_str(&err.to_string());
    let refunds = format!("/payments/{}/refunds", paid["uuid"].as_str().unwrap());
    let (status, err, _) = w
        .post(&refunds, &token, &json!({PAN: "everything"}), None)
        .await;
    assert_eq!(status, 400, "{err}");
    answers.push_str(&err.to_string());

    // Good cards under a key: the key's row keeps a digest of the request that a plain
    // hash of the body (and so the card's digits) cannot be matched against.
    for path in ["/payments", "/payment-sources"] {
        let body = json!({"account_uuid": account, "payment_method": "card",
            "amount": {"value": "500", "currency": "CHF"},
            "payment_information": {"number": PAN, "expiry_month": 12, "expiry_year": 2030, "cvv": CVV}});
        let (status, made, _) = w
            .post(path, &token, &body, Some(&format!("good-{path}")))
            .await;
        assert_eq!(status, 201, "{made}");
        answers.push_str(&made.to_string());
        digests.push(plain_request_digest(path, &body));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let spellings = [
        PAN.to_owned(),
        "4.111111111111111".to_owned(),
        format!("\"{CVV}\""),
        format!("{CVV}.0"),
        format!(": {CVV}"),
    ];
    for form in &spellings {
        assert!(
            !answers.contains(form.as_str()),
            "an answer holds {form}: {answers}"
        );
    }
    let logged = log.0.lock().unwrap().clone();
    assert!(
        contains(&logged, "/payment-sources"),
        "requests were logged"
    );
    for form in spellings
        .iter()
        .map(String::as_str)
        .chain(digests.iter().map(String::as_str))
    {
        assert!(!contains(&logged, form), "{form} in the log");
    }
    let files = w.app.database_files();
    assert!(
        files.len() >= 3,
        "payments, identity and bus databases: {files:?}"
    );
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        for form in spellings
            .iter()
            .map(String::as_str)
            .chain(digests.iter().map(String::as_str))
        {
            assert!(
                !contains(&bytes, form),
                "{form} found in {}",
                file.display()
            );
        }
    }
    assert!(
        files
            .iter()
            .any(|f| contains(&std::fs::read(f).unwrap(), "\"last4\":\"1111\"")),
        "the masked card is stored, so the search read the stored data"
    );
}
