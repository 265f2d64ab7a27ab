//! Compares our reading of the genkgo sample files with genkgo's own expected parse (the
//! `*.json` beside each `*.xml`, a dump of its DTOs). Two independent readers agreeing on
//! amounts, directions, dates and references is the check that matters for reconciliation.
//!
//! How the dump is read:
//! - `getAmount.getAmount` is a signed count of minor units (negative for a debit).
//! - `"__RECURSIVITY__"` marks an object already printed; in a list it stands for the
//!   singular getter beside it (`getTransactionDetails[0]` is `getTransactionDetail`).
//! - genkgo signs a transaction amount with its entry's direction, not the transaction's
//!   own `CdtDbtInd`, so transaction amounts are compared without sign.
//! - For the multi-statement file the dump's `getEntries` holds only the last statement's
//!   entries, so entry counts are compared per statement the dump covers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_camt::{Amount, Document, Entry, Limits, Party, Transaction, parse};
use serde_json::Value;
use std::path::Path;

const RECURSION: &str = "__RECURSIVITY__";

#[test]
fn genkgo_golden_files_agree() {
    let dir = common::testdata().join("genkgo-camt");
    let mut compared = 0;
    for xml in common::xml_files(&dir) {
        let json = xml.with_extension("json");
        if !json.exists() {
            continue;
        }
        compare_file(&xml, &json);
        compared += 1;
    }
    assert!(compared >= 15, "only {compared} golden files compared");
}

fn compare_file(xml: &Path, json: &Path) {
    let name = xml.file_name().unwrap().to_string_lossy().into_owned();
    let document = parse(&std::fs::read(xml).unwrap(), &Limits::default())
        .unwrap_or_else(|err| panic!("{name}: {err}"));
    let golden: Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();

    let records = golden["getRecords"].as_array().unwrap();
    assert_eq!(
        document.statements.len(),
        records.len(),
        "{name}: statements"
    );

    let golden_entries = golden["getEntries"].as_array().unwrap();
    let mut covered: Vec<&str> = golden_entries
        .iter()
        .map(|e| e["getRecord"]["getId"].as_str().unwrap())
        .collect();
    covered.dedup();
    for statement_id in &covered {
        let ours = statement(&document, statement_id).entries.len();
        let theirs = golden_entries
            .iter()
            .filter(|e| e["getRecord"]["getId"] == *statement_id)
            .count();
        assert_eq!(ours, theirs, "{name}: entries of statement {statement_id}");
    }
    if golden_entries.is_empty() {
        let ours: usize = document.statements.iter().map(|s| s.entries.len()).sum();
        assert_eq!(ours, 0, "{name}: entries");
    }

    for golden_entry in golden_entries {
        let statement_id = golden_entry["getRecord"]["getId"].as_str().unwrap();
        let index = usize::try_from(golden_entry["getIndex"].as_u64().unwrap()).unwrap();
        let entry = &statement(&document, statement_id).entries[index];
        let at = format!("{name}: statement {statement_id} entry {index}");
        compare_entry(entry, golden_entry, &at);
    }
}

fn statement<'a>(document: &'a Document, id: &str) -> &'a coffer_camt::Statement {
    document
        .statements
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no statement {id}"))
}

fn compare_entry(entry: &Entry, golden: &Value, at: &str) {
    let (units, currency) = money(&golden["getAmount"]);
    let sign = if entry.direction == coffer_camt::Direction::Debit {
        -1
    } else {
        1
    };
    assert_eq!(entry.amount.currency, currency, "{at}: currency");
    assert_eq!(
        minor_units(&entry.amount).map(|u| u * sign),
        Some(units),
        "{at}: amount"
    );
    assert_eq!(
        entry.direction.as_code(),
        golden["getCreditDebitIndicator"],
        "{at}: direction"
    );
    assert_eq!(
        entry.reversal, golden["getReversalIndicator"],
        "{at}: reversal"
    );
    assert_eq!(
        entry.status.as_deref(),
        golden["getStatus"].as_str(),
        "{at}: status"
    );
    assert_eq!(
        date(entry.booking_date),
        date_of(&golden["getBookingDate"]),
        "{at}: booking"
    );
    assert_eq!(
        date(entry.value_date),
        date_of(&golden["getValueDate"]),
        "{at}: value date"
    );
    assert_eq!(
        entry.entry_reference.as_deref(),
        golden["getReference"].as_str(),
        "{at}: NtryRef"
    );
    assert_eq!(
        entry.account_servicer_reference.as_deref(),
        golden["getAccountServicerReference"].as_str(),
        "{at}: AcctSvcrRef"
    );
    let batch_id = entry
        .batch
        .as_ref()
        .and_then(|b| b.payment_information_id.as_deref());
    assert_eq!(
        batch_id,
        golden["getBatchPaymentId"].as_str(),
        "{at}: batch payment id"
    );
    // genkgo gives an absent AddtlNtryInf as "".
    assert_eq!(
        entry.additional_info.as_deref().unwrap_or(""),
        golden["getAdditionalInfo"].as_str().unwrap_or(""),
        "{at}: additional info"
    );

    let golden_txs = resolved(
        &golden["getTransactionDetails"],
        &golden["getTransactionDetail"],
    );
    assert_eq!(
        entry.transactions.len(),
        golden_txs.len(),
        "{at}: transactions"
    );
    for (i, (tx, golden_tx)) in entry.transactions.iter().zip(golden_txs).enumerate() {
        compare_transaction(tx, golden_tx, &format!("{at} transaction {i}"));
    }
}

fn compare_transaction(tx: &Transaction, golden: &Value, at: &str) {
    let amount = &golden["getAmount"];
    if amount.is_null() {
        assert_eq!(tx.amount, None, "{at}: amount");
    } else {
        let (units, currency) = money(amount);
        let ours = tx
            .amount
            .as_ref()
            .unwrap_or_else(|| panic!("{at}: no amount"));
        assert_eq!(ours.currency, currency, "{at}: currency");
        assert_eq!(minor_units(ours), Some(units.abs()), "{at}: amount");
    }

    let refs = &golden["getReference"];
    let reference = |key: &str| refs[key].as_str().map(str::to_owned);
    assert_eq!(
        tx.end_to_end_id,
        reference("getEndToEndId"),
        "{at}: EndToEndId"
    );
    assert_eq!(tx.mandate_id, reference("getMandateId"), "{at}: MndtId");
    assert_eq!(
        tx.instruction_id,
        reference("getInstructionId"),
        "{at}: InstrId"
    );
    assert_eq!(
        tx.transaction_id,
        reference("getTransactionId"),
        "{at}: TxId"
    );
    assert_eq!(tx.uetr, reference("getUuidEndToEndReference"), "{at}: UETR");
    assert_eq!(
        tx.account_servicer_reference,
        reference("getAccountServicerReference"),
        "{at}: AcctSvcrRef"
    );

    let remittance = &golden["getRemittanceInformation"];
    if remittance.is_null() {
        assert!(tx.unstructured_remittance.is_empty(), "{at}: Ustrd");
        assert_eq!(tx.creditor_reference, None, "{at}: creditor reference");
    } else {
        let lines: Vec<&str> = resolved(
            &remittance["getUnstructuredBlocks"],
            &remittance["getUnstructuredBlock"],
        )
        .into_iter()
        .map(|block| block["getMessage"].as_str().unwrap())
        .collect();
        assert_eq!(tx.unstructured_remittance, lines, "{at}: Ustrd");
        let mut block = &remittance["getStructuredBlock"]["getCreditorReferenceInformation"];
        if block == RECURSION {
            block = &remittance["getCreditorReferenceInformation"];
        }
        let reference = block["getRef"].as_str();
        assert_eq!(
            tx.creditor_reference.as_deref(),
            reference,
            "{at}: creditor reference"
        );
    }

    let returned = &golden["getReturnInformation"];
    assert_eq!(
        tx.return_reason.as_deref(),
        returned["getCode"].as_str(),
        "{at}: return"
    );
    assert_eq!(
        tx.additional_info.as_deref(),
        golden["getAdditionalTransactionInformation"].as_str(),
        "{at}: AddtlTxInf"
    );

    let parties = golden["getRelatedParties"].as_array().unwrap();
    compare_party(
        tx.debtor.as_ref(),
        related(parties, "Debtor"),
        &format!("{at} debtor"),
    );
    compare_party(
        tx.creditor.as_ref(),
        related(parties, "Creditor"),
        &format!("{at} creditor"),
    );
}

fn compare_party(ours: Option<&Party>, golden: Option<&Value>, at: &str) {
    let Some(golden) = golden else {
        assert_eq!(ours, None, "{at}");
        return;
    };
    let ours = ours.unwrap_or_else(|| panic!("{at}: missing"));
    let kind = &golden["getRelatedPartyType"];
    assert_eq!(ours.name.as_deref(), kind["getName"].as_str(), "{at}: name");
    let iban = golden["getAccount"]["getIban"]["getIban"].as_str();
    assert_eq!(ours.iban.as_deref(), iban, "{at}: IBAN");
    let address = &kind["getAddress"];
    if !address.is_null() {
        assert_eq!(
            ours.country.as_deref(),
            address["getCountry"].as_str(),
            "{at}: country"
        );
        assert_eq!(
            ours.town.as_deref(),
            address["getTownName"].as_str(),
            "{at}: town"
        );
        assert_eq!(
            ours.postal_code.as_deref(),
            address["getPostCode"].as_str(),
            "{at}: PstCd"
        );
        assert_eq!(
            ours.street.as_deref(),
            address["getStreetName"].as_str(),
            "{at}: street"
        );
        let lines: Vec<&str> = address["getAddressLines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        assert_eq!(ours.address_lines, lines, "{at}: address lines");
    }
}

/// The related party of one class (`Debtor`, `Creditor`); ultimate parties are not read.
fn related<'a>(parties: &'a [Value], class: &str) -> Option<&'a Value> {
    let suffix = format!("\\{class}");
    parties.iter().find(|p| {
        p["getRelatedPartyType"]["__CLASS__"]
            .as_str()
            .is_some_and(|c| c.ends_with(&suffix))
    })
}

/// A list from the dump with its recursion markers replaced by the singular value.
fn resolved<'a>(list: &'a Value, single: &'a Value) -> Vec<&'a Value> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|item| if item == RECURSION { single } else { item })
        .collect()
}

fn money(value: &Value) -> (i64, String) {
    let units = value["getAmount"].as_str().unwrap().parse().unwrap();
    let currency = value["getCurrency"]["getCode"].as_str().unwrap().to_owned();
    (units, currency)
}

fn minor_units(amount: &Amount) -> Option<i64> {
    amount.minor_units(exponent(&amount.currency))
}

/// ISO 4217 exponents of the currencies in the samples.
fn exponent(currency: &str) -> u32 {
    match currency {
        "EUR" | "CHF" | "SEK" | "USD" | "GBP" | "RON" => 2,
        "JPY" => 0,
        other => panic!("add the exponent of {other}"),
    }
}

fn date(value: Option<time::Date>) -> Option<String> {
    value.map(|d| d.to_string())
}

/// `{"0": "2014-12-31T00:00:00+00:00"}` to `2014-12-31`.
fn date_of(value: &Value) -> Option<String> {
    value["0"].as_str().map(|s| s[..10].to_owned())
}
