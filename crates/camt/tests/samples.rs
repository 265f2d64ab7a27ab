//! Real-world shaped files from other camt readers' test suites (third-party, in
//! shared/testdata/camt): every one is read, and what reconciliation relies on is checked
//! value by value.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_camt::{CamtError, Decimal, Direction, Document, Entry, Limits, MessageType, parse};
use common::{sample, testdata, xml_files};
use std::str::FromStr;
use time::macros::date;

/// Files that hold no statement, and what they are refused as.
fn expected_refusal(relative: &str) -> Option<CamtError> {
    match relative {
        // `<Document xmlns="…camt.053.001.02"/>` with nothing inside.
        "viafintech-camt_parser/053_valid_namespace.xml" => Some(CamtError::NotCamt),
        // The same empty Document, under the camt.053.001.03 namespace.
        "viafintech-camt_parser/general_invalid_namespace.xml" => Some(CamtError::NotCamt),
        // A BkToCstmrStmt with its GrpHdr and no Stmt.
        "genkgo-camt/camt053.v2.wrong.xml" => Some(CamtError::NoStatement),
        _ => None,
    }
}

#[test]
fn every_sample_is_read_or_refused_for_the_right_reason() {
    let root = testdata();
    let files = xml_files(&root);
    assert!(files.len() >= 30, "only {} samples found", files.len());
    for path in files {
        let relative = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let result = parse(&bytes, &Limits::default());
        match (expected_refusal(&relative), result) {
            (None, Ok(document)) => assert!(!document.statements.is_empty(), "{relative}"),
            (None, Err(err)) => panic!("{relative} was refused: {err}"),
            (Some(expected), Err(err)) => assert_eq!(err, expected, "{relative}"),
            (Some(expected), Ok(_)) => panic!("{relative} was read; expected {expected}"),
        }
    }
}

#[test]
fn refusals_say_what_is_missing() {
    let bytes = std::fs::read(testdata().join("genkgo-camt/camt053.v2.wrong.xml")).unwrap();
    let message = parse(&bytes, &Limits::default()).unwrap_err().to_string();
    assert_eq!(
        message,
        "the file has a group header but no statement or notification"
    );
    let bytes =
        std::fs::read(testdata().join("viafintech-camt_parser/053_valid_namespace.xml")).unwrap();
    let message = parse(&bytes, &Limits::default()).unwrap_err().to_string();
    assert_eq!(
        message,
        "the file holds no camt.053 statement or camt.054 notification"
    );
}

fn dec(text: &str) -> Decimal {
    Decimal::from_str(text).unwrap()
}

fn entries(document: &Document) -> &[Entry] {
    assert_eq!(document.statements.len(), 1);
    &document.statements[0].entries
}

#[test]
fn v02_statement_with_references_parties_and_batch() {
    let document = sample("viafintech-camt_parser/053_valid_example.xml");
    assert_eq!(document.message_type, MessageType::Camt053);
    assert_eq!(document.version, "camt.053.001.02");
    assert_eq!(document.message_id, "053D2013-12-27T22:05:03.0N130000005");
    let statement = &document.statements[0];
    assert_eq!(statement.id, "0352C5320131227220503");
    assert_eq!(
        statement.account.iban.as_deref(),
        Some("DE14740618130000033626")
    );
    assert_eq!(statement.account.currency.as_deref(), Some("EUR"));
    assert_eq!(
        statement.account.owner_name.as_deref(),
        Some("Testkonto Nummer 1")
    );

    let entries = entries(&document);
    assert_eq!(entries.len(), 4);
    let first = &entries[0];
    assert_eq!(first.amount.value, dec("2.00"));
    assert_eq!(first.amount.currency, "EUR");
    assert_eq!(first.direction, Direction::Debit);
    assert!(!first.reversal);
    assert_eq!(first.status.as_deref(), Some("BOOK"));
    assert_eq!(first.booking_date, Some(date!(2013 - 12 - 27)));
    assert_eq!(first.entry_reference.as_deref(), Some("1234567890sdfghjk"));
    assert_eq!(
        first.account_servicer_reference.as_deref(),
        Some("2013122710583450000")
    );
    // `<BkTxCd/>` is empty.
    assert_eq!(first.bank_transaction_code, None);
    assert!(
        first
            .additional_info
            .as_deref()
            .unwrap()
            .starts_with("Überweisungs-Gutschrift")
    );

    let tx = &first.transactions[0];
    // camt.053.001.02 transactions carry no Amt and this one has no AmtDtls either.
    assert_eq!(tx.amount, None);
    assert_eq!(tx.direction, None);
    assert_eq!(tx.end_to_end_id.as_deref(), Some("EndToEndReference"));
    assert_eq!(tx.mandate_id.as_deref(), Some("MandateReference"));
    assert_eq!(tx.transaction_id.as_deref(), Some("UniqueTransactionId"));
    assert_eq!(
        tx.account_servicer_reference.as_deref(),
        Some("BankReference")
    );
    assert_eq!(
        tx.additional_info.as_deref(),
        Some("AdditionalTransactionInformation")
    );
    let debtor = tx.debtor.as_ref().unwrap();
    assert_eq!(debtor.name.as_deref(), Some("Wayne Enterprises"));
    assert_eq!(debtor.iban.as_deref(), Some("DE24302201900609832118"));
    let creditor = tx.creditor.as_ref().unwrap();
    assert_eq!(
        creditor.address_lines,
        ["Berlin", "Infinite Loop 2", "12345"]
    );
    assert_eq!(creditor.iban.as_deref(), Some("DE09300606010012345671"));

    // A batch of two whose amounts come from AmtDtls/TxAmt and add up.
    let batch_entry = &entries[3];
    let batch = batch_entry.batch.as_ref().unwrap();
    assert_eq!(batch.number_of_transactions, Some(2));
    assert_eq!(
        batch.payment_information_id.as_deref(),
        Some("STZV-PmInf27122013-11:02-2")
    );
    let amounts: Vec<_> = batch_entry
        .transactions
        .iter()
        .map(|tx| tx.amount.as_ref().unwrap().value)
        .collect();
    assert_eq!(amounts, [dec("3.50"), dec("2.50")]);
    assert_eq!(batch_entry.batch_mismatch, None);
}

#[test]
fn v04_swiss_statement_with_esr_batches_and_reversals() {
    let document = sample("viafintech-camt_parser/053_valid_example_v4.xml");
    assert_eq!(document.version, "camt.053.001.04");
    let entries = entries(&document);
    assert_eq!(entries.len(), 13);
    let transactions: usize = entries.iter().map(|e| e.transactions.len()).sum();
    assert_eq!(transactions, 32);
    let reversals: Vec<usize> = entries
        .iter()
        .filter(|e| e.reversal)
        .map(|e| e.index)
        .collect();
    assert_eq!(reversals, [11, 12]);
    assert!(entries.iter().all(|e| e.batch_mismatch.is_none()));

    let esr = &entries[6];
    assert_eq!(esr.amount.value, dec("1000.00"));
    assert_eq!(esr.direction, Direction::Credit);
    assert_eq!(esr.entry_reference.as_deref(), Some("010000004"));
    assert_eq!(esr.bank_transaction_code.as_deref(), Some("PMNT/RCDT/VCOM"));
    assert_eq!(esr.booking_date, Some(date!(2016 - 05 - 27)));
    assert_eq!(esr.value_date, Some(date!(2016 - 05 - 30)));
    assert_eq!(esr.batch.as_ref().unwrap().number_of_transactions, Some(10));
    assert_eq!(esr.transactions.len(), 10);
    assert_eq!(
        esr.transactions[1].creditor_reference.as_deref(),
        Some("000000000002016030002820804")
    );

    let reject = &entries[4];
    assert!(
        reject
            .additional_info
            .as_deref()
            .unwrap()
            .contains("REJECTBEHANDLUNG")
    );
    assert_eq!(
        reject.bank_transaction_code.as_deref(),
        Some("PMNT/RCDT/CHRG")
    );
    assert_eq!(
        entries[0].bank_transaction_code.as_deref(),
        Some("ACMT/ADOP/CHRG")
    );

    let refund = &entries[11];
    assert_eq!(refund.amount.value, dec("6.00"));
    assert_eq!(refund.direction, Direction::Debit);
    assert_eq!(
        refund.transactions[0].return_reason.as_deref(),
        Some("MD06")
    );

    let total_credits: Decimal = entries
        .iter()
        .filter(|e| e.direction == Direction::Credit)
        .map(|e| e.amount.value)
        .sum();
    assert_eq!(total_credits, dec("1810.56"));
}

#[test]
fn v08_statement_with_status_code_and_nested_party() {
    let document = sample("viafintech-camt_parser/053_valid_example_v8.xml");
    assert_eq!(document.version, "camt.053.001.08");
    let entries = entries(&document);
    assert_eq!(entries.len(), 3);
    let first = &entries[0];
    // `<Sts><Cd>BOOK</Cd></Sts>` from .08 on.
    assert_eq!(first.status.as_deref(), Some("BOOK"));
    assert_eq!(first.amount.value, dec("474.4"));
    assert_eq!(first.amount.minor_units(2), Some(47_440));
    let tx = &first.transactions[0];
    assert_eq!(
        tx.uetr.as_deref(),
        Some("d0826d0f-a005-5e3b-b3dc-54da4ac7f0d0")
    );
    assert_eq!(tx.end_to_end_id.as_deref(), Some("80000004540000100095"));
    // `RltdPties/Dbtr/Pty/Nm` from .08 on.
    let debtor = tx.debtor.as_ref().unwrap();
    assert_eq!(debtor.name.as_deref(), Some("Jon Doe"));
    assert_eq!(debtor.address_lines, ["Hofstrasse 2", "CH-8000 Zürich"]);
    assert_eq!(
        entries[1].transactions[0].creditor_reference.as_deref(),
        Some("RF38000000000000000000552")
    );
    assert_eq!(entries[2].amount.currency, "EUR");
    assert_eq!(entries[2].direction, Direction::Debit);
}

#[test]
fn v02_batch_without_details() {
    let document = sample("viafintech-camt_parser/053_valid_example_with_batch.xml");
    let entries = entries(&document);
    assert_eq!(entries.len(), 3);
    let batch_entry = &entries[0];
    assert_eq!(batch_entry.amount.value, dec("4753.74"));
    assert_eq!(
        batch_entry.bank_transaction_code.as_deref(),
        Some("PMNT/ICDT/ESCT")
    );
    let batch = batch_entry.batch.as_ref().unwrap();
    assert_eq!(
        batch.message_id.as_deref(),
        Some("02453b1e17c11241073a777ad9c273b4149")
    );
    assert_eq!(
        batch.payment_information_id.as_deref(),
        Some("O0OpeAYTkhjerKu3eE9asw")
    );
    assert_eq!(batch.number_of_transactions, Some(3));
    assert!(batch_entry.transactions.is_empty());
    // Nothing to add up, so nothing disagrees.
    assert_eq!(batch_entry.batch_mismatch, None);
    let tx = &entries[1].transactions[0];
    assert_eq!(tx.debtor.as_ref().unwrap().name.as_deref(), Some("TEST"));
    assert_eq!(
        tx.debtor.as_ref().unwrap().iban.as_deref(),
        Some("NL86INGB00066666666")
    );
    assert_eq!(tx.unstructured_remittance, ["TERUGGAAF"]);
}

#[test]
fn v10_statement_with_date_times_and_other_account_id() {
    let document = sample("viafintech-camt_parser/053_valid_example_with_datetime.xml");
    assert_eq!(document.version, "camt.053.001.10");
    assert_eq!(
        document.created_at.as_deref(),
        Some("2023-07-06T10:27:07.213294607Z")
    );
    let account = &document.statements[0].account;
    assert_eq!(account.iban, None);
    assert_eq!(account.other_id.as_deref(), Some("11111111"));
    assert_eq!(account.currency.as_deref(), Some("USD"));
    assert_eq!(account.owner_name.as_deref(), Some("Max Muster"));
    let entry = &entries(&document)[0];
    assert_eq!(entry.booking_date, Some(date!(2023 - 06 - 21)));
    assert_eq!(entry.value_date, None);
    assert_eq!(entry.entry_reference.as_deref(), Some("Test Buchung"));
    assert_eq!(
        entry.bank_transaction_code.as_deref(),
        Some("TRANSFER-123456789")
    );
}

#[test]
fn v02_instructed_amount_that_does_not_make_the_entry() {
    let document = sample("viafintech-camt_parser/053_valid_example_with_instdamt.xml");
    let entry = &entries(&document)[0];
    assert_eq!(entry.amount.value, dec("4500.00"));
    // TxAmt says 0.04 while the entry books 4500.00: reported, not hidden.
    let mismatch = entry.batch_mismatch.as_ref().unwrap();
    assert_eq!(
        mismatch.transactions_total.as_ref().unwrap().value,
        dec("0.04")
    );
    assert_eq!(entry.bank_transaction_code.as_deref(), Some("*/*/OTHR"));
}

#[test]
fn statement_without_entries_for_an_account_without_iban() {
    let document = sample("viafintech-camt_parser/053_valid_example_with_other_id.xml");
    let statement = &document.statements[0];
    assert_eq!(statement.account.other_id.as_deref(), Some("ABCDE1234"));
    assert_eq!(statement.account.iban, None);
    assert!(statement.entries.is_empty());
    assert_eq!(
        statement.created_at.as_deref(),
        Some("2013-12-27T22:04:52.0+01:00")
    );
}

#[test]
fn v04_notification_with_direct_debit_returns() {
    let document = sample("viafintech-camt_parser/054_valid_example.xml");
    assert_eq!(document.message_type, MessageType::Camt054);
    assert_eq!(document.message_type.as_str(), "camt.054");
    assert_eq!(document.version, "camt.054.001.04");
    let notification = &document.statements[0];
    assert_eq!(notification.id, "20160410375204000131032");
    assert_eq!(
        notification.account.iban.as_deref(),
        Some("CH0309000000250090342")
    );
    let entries = &notification.entries;
    assert_eq!(entries.len(), 4);
    let amounts: Vec<_> = entries.iter().map(|e| e.amount.value).collect();
    assert_eq!(
        amounts,
        [dec("24.00"), dec("56.56"), dec("6.00"), dec("15.53")]
    );
    let reversals: Vec<_> = entries.iter().map(|e| e.reversal).collect();
    assert_eq!(reversals, [false, false, true, true]);
    let directions: Vec<_> = entries.iter().map(|e| e.direction).collect();
    use Direction::{Credit, Debit};
    assert_eq!(directions, [Credit, Credit, Debit, Debit]);

    let batch = &entries[0];
    assert_eq!(
        batch.bank_transaction_code.as_deref(),
        Some("PMNT/RDDT/PMDD")
    );
    assert_eq!(batch.transactions.len(), 2);
    assert_eq!(batch.batch_mismatch, None);
    let first = &batch.transactions[0];
    assert_eq!(
        first.end_to_end_id.as_deref(),
        Some("EndToEnd-CRDBRActSame-1B9C-CHDDBB2")
    );
    assert_eq!(
        first.instruction_id.as_deref(),
        Some("INSTR-CRDBRActSame-1B9C-CHDDBB2")
    );
    let debtor = first.debtor.as_ref().unwrap();
    assert_eq!(debtor.name.as_deref(), Some("Rutschmann Pia"));
    assert_eq!(debtor.street.as_deref(), Some("Marktgasse"));
    assert_eq!(debtor.postal_code.as_deref(), Some("9400"));
    assert_eq!(debtor.town.as_deref(), Some("Rorschach"));
    assert_eq!(debtor.country.as_deref(), Some("CH"));

    let refund = &entries[2];
    assert_eq!(
        refund.bank_transaction_code.as_deref(),
        Some("PMNT/IDDT/PRDD")
    );
    assert_eq!(
        refund.transactions[0].return_reason.as_deref(),
        Some("MD06")
    );
    assert_eq!(
        refund.transactions[0].end_to_end_id.as_deref(),
        Some("EndToEnd-2B6C-CHDDBB5")
    );
    assert_eq!(
        entries[3].transactions[0].return_reason.as_deref(),
        Some("MD06")
    );
}

#[test]
fn document_wrapped_with_an_application_header() {
    let document = sample("prowide-iso20022/camt.053.001.07-with-AppHdr.xml");
    assert_eq!(document.version, "camt.053.001.07");
    assert_eq!(document.message_id, "SDFSDF");
    assert_eq!(document.created_at.as_deref(), Some("2018-04-30T17:32:05"));
    let statement = &document.statements[0];
    assert_eq!(statement.id, "SDFSDF");
    assert_eq!(statement.account.other_id.as_deref(), Some("2345234534"));
    assert_eq!(statement.account.iban, None);
    assert_eq!(statement.account.currency.as_deref(), Some("USD"));
    assert!(statement.entries.is_empty());
}

#[test]
fn documents_serialise_for_the_api() {
    let document = sample("viafintech-camt_parser/054_valid_example.xml");
    let json = serde_json::to_value(&document).unwrap();
    assert_eq!(json["message_type"], "camt.054");
    let entry = &json["statements"][0]["entries"][2];
    assert_eq!(
        entry["amount"],
        serde_json::json!({"currency": "CHF", "value": "6.00"})
    );
    assert_eq!(entry["direction"], "debit");
    assert_eq!(entry["booking_date"], "2016-04-10");
}

#[test]
fn several_statements_in_one_file() {
    let document = sample("genkgo-camt/camt053.v2.multi.statement.xml");
    let ids: Vec<&str> = document.statements.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids,
        ["253EURNL26VAYB8060476890", "254EURNL26VAYB8060476890"]
    );
    let first = &document.statements[0].entries[0];
    assert_eq!(
        (first.amount.value, first.direction),
        (dec("8.85"), Direction::Credit)
    );
    assert_eq!(
        first.transactions[0].end_to_end_id.as_deref(),
        Some("000000001")
    );
    let second = &document.statements[1].entries[0];
    assert_eq!(
        (second.amount.value, second.direction),
        (dec("7.00"), Direction::Debit)
    );
    assert_eq!(second.index, 0);
}

#[test]
fn more_decimals_than_the_currency_has() {
    // `8.850` EUR has a third decimal that is zero: exactly 885 cents.
    let document = sample("genkgo-camt/camt053.v2.five.decimals.xml");
    let amount = &document.statements[0].entries[0].amount;
    assert_eq!(amount.value.to_string(), "8.850");
    assert_eq!(amount.minor_units(2), Some(885));
    // More decimals than the exponent allows: 105.75 is no whole number of tenths, so
    // there is no answer rather than a rounded one.
    let tx = &sample("genkgo-camt/camt053.v3.xml").statements[0].entries[0].transactions[0];
    let tx_amount = tx.amount.as_ref().unwrap();
    assert_eq!(tx_amount.value.to_string(), "105.750");
    assert_eq!(tx_amount.minor_units(2), Some(10_575));
    assert_eq!(tx_amount.minor_units(1), None);
}
