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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_card_number_cvv_or_iban_is_stored_or_logged() {
    let log = Captured::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .init();

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
