//! The shapes banks actually send beyond the samples: prefixes, Swiss namespaces, wrappers,
//! and the errors for files that are camt-like but wrong.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use coffer_camt::{CamtError, Decimal, Direction, Document, Limits, MessageType, parse};
use time::macros::date;

const ISO: &str = "urn:iso:std:iso:20022:tech:xsd:";

const ENTRY: &str = r#"<Ntry><Amt Ccy="EUR">10.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2024-01-31</Dt></BookgDt></Ntry>"#;

fn statement(namespace: &str, entries: &str) -> String {
    format!(
        r#"<Document xmlns="{namespace}"><BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId></GrpHdr>
<Stmt><Id>S1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
{entries}
</Stmt></BkToCstmrStmt></Document>"#
    )
}

fn read(xml: &str) -> Result<Document, CamtError> {
    parse(xml.as_bytes(), &Limits::default())
}

fn first_entry_amount(document: &Document) -> Decimal {
    document.statements[0].entries[0].amount.value
}

#[test]
fn every_supported_version_is_read() {
    for kind in ["053", "054"] {
        for variant in 2..=10 {
            let version = format!("camt.{kind}.001.{variant:02}");
            let xml = statement(&format!("{ISO}{version}"), ENTRY);
            let xml = if kind == "054" {
                xml.replace("BkToCstmrStmt", "BkToCstmrDbtCdtNtfctn")
                    .replace("Stmt>", "Ntfctn>")
            } else {
                xml
            };
            let document = read(&xml).unwrap_or_else(|err| panic!("{version}: {err}"));
            assert_eq!(document.version, version);
            assert_eq!(document.message_type.as_str(), format!("camt.{kind}"));
            assert_eq!(first_entry_amount(&document), Decimal::new(1050, 2));
        }
    }
}

#[test]
fn prefixed_elements_are_read() {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ns2:Document xmlns:ns2="{ISO}camt.054.001.02"><ns2:BkToCstmrDbtCdtNtfctn>
<ns2:GrpHdr><ns2:MsgId>M1</ns2:MsgId></ns2:GrpHdr>
<ns2:Ntfctn><ns2:Id>N1</ns2:Id><ns2:Acct><ns2:Id><ns2:IBAN>CH9300762011623852957</ns2:IBAN></ns2:Id></ns2:Acct>
<ns2:Ntry><ns2:Amt Ccy="CHF">5</ns2:Amt><ns2:CdtDbtInd>DBIT</ns2:CdtDbtInd></ns2:Ntry>
</ns2:Ntfctn></ns2:BkToCstmrDbtCdtNtfctn></ns2:Document>"#
    );
    let document = read(&xml).unwrap();
    assert_eq!(document.message_type, MessageType::Camt054);
    assert_eq!(document.version, "camt.054.001.02");
    let entry = &document.statements[0].entries[0];
    assert_eq!(entry.direction, Direction::Debit);
    assert_eq!(entry.amount.minor_units(2), Some(500));
}

#[test]
fn swiss_sps_namespace_is_read() {
    let xml = statement(
        "http://www.six-interbank-clearing.com/de/camt.053.001.04.xsd",
        ENTRY,
    );
    assert_eq!(read(&xml).unwrap().version, "camt.053.001.04");
}

#[test]
fn wrapped_and_unwrapped_messages_are_found() {
    let inner = statement(&format!("{ISO}camt.053.001.08"), ENTRY);
    let envelope = format!(
        r#"<Envelope><Header><AppHdr xmlns="{ISO}head.001.001.02"><MsgDefIdr>camt.053.001.08</MsgDefIdr></AppHdr></Header><Body>{inner}</Body></Envelope>"#
    );
    assert_eq!(read(&envelope).unwrap().message_id, "M1");

    let bare = inner
        .replace(&format!(r#"<Document xmlns="{ISO}camt.053.001.08">"#), "")
        .replace("</Document>", "")
        .replace(
            "<BkToCstmrStmt>",
            &format!(r#"<BkToCstmrStmt xmlns="{ISO}camt.053.001.08">"#),
        );
    assert_eq!(read(&bare).unwrap().version, "camt.053.001.08");
}

#[test]
fn byte_order_mark_entities_and_whitespace() {
    let entry = r#"<Ntry><Amt Ccy="EUR">
        10.50
    </Amt><CdtDbtInd> CRDT </CdtDbtInd><RvslInd>1</RvslInd>
<BookgDt><DtTm>2024-01-31T23:30:00-05:00</DtTm></BookgDt>
<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>  Smith &amp; Sons <![CDATA[Ltd]]></Nm></Cdtr>
<CdtrAcct><Id><IBAN>FR1420041010050500013M02606</IBAN></Id></CdtrAcct>
<DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties>
<RmtInf><Ustrd>Gift</Ustrd><Ustrd>   </Ustrd><Ustrd>thanks</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>"#;
    let xml = format!(
        "\u{FEFF}{}",
        statement(&format!("{ISO}camt.053.001.02"), entry)
    );
    let document = read(&xml).unwrap();
    let entry = &document.statements[0].entries[0];
    assert_eq!(entry.amount.value, Decimal::new(1050, 2));
    assert!(entry.reversal);
    // The date as the bank wrote it, not moved to UTC.
    assert_eq!(entry.booking_date, Some(date!(2024 - 01 - 31)));
    let tx = &entry.transactions[0];
    assert_eq!(
        tx.creditor.as_ref().unwrap().name.as_deref(),
        Some("Smith & Sons Ltd")
    );
    assert_eq!(
        tx.creditor.as_ref().unwrap().iban.as_deref(),
        Some("FR1420041010050500013M02606")
    );
    // An account alone still names the debtor side.
    let debtor = tx.debtor.as_ref().unwrap();
    assert_eq!(debtor.name, None);
    assert_eq!(debtor.iban.as_deref(), Some("DE89370400440532013000"));
    assert_eq!(tx.unstructured_remittance, ["Gift", "thanks"]);
}

#[test]
fn versions_outside_the_range_are_named() {
    for (namespace, named) in [
        (format!("{ISO}camt.053.001.11"), "camt.053.001.11"),
        (format!("{ISO}camt.053.001.01"), "camt.053.001.01"),
    ] {
        let err = read(&statement(&namespace, ENTRY)).unwrap_err();
        let CamtError::UnsupportedVersion(message) = &err else {
            panic!("{err:?}");
        };
        assert!(message.contains(named), "{message}");
    }
    let err = read(&statement("", ENTRY).replace(r#" xmlns="""#, "")).unwrap_err();
    assert!(matches!(&err, CamtError::UnsupportedVersion(m) if m.contains("no namespace")));
    let err = read(&statement(&format!("{ISO}camt.054.001.04"), ENTRY)).unwrap_err();
    assert!(matches!(&err, CamtError::UnsupportedVersion(m) if m.contains("camt.054.001.04")));
}

#[test]
fn other_messages_are_not_camt() {
    let report = statement(&format!("{ISO}camt.052.001.08"), ENTRY)
        .replace("BkToCstmrStmt", "BkToCstmrAcctRpt")
        .replace("Stmt>", "Rpt>");
    assert_eq!(read(&report), Err(CamtError::NotCamt));
    let payment =
        format!(r#"<Document xmlns="{ISO}pain.001.001.03"><CstmrCdtTrfInitn/></Document>"#);
    assert_eq!(read(&payment), Err(CamtError::NotCamt));
    assert_eq!(
        read("<html><body>hello</body></html>"),
        Err(CamtError::NotCamt)
    );
}

#[test]
fn missing_required_elements_are_named() {
    let ns = format!("{ISO}camt.053.001.04");
    let cases = [
        (
            statement(&ns, ENTRY).replace("<MsgId>M1</MsgId>", ""),
            "GrpHdr/MsgId",
        ),
        (statement(&ns, ENTRY).replace("<Id>S1</Id>", ""), "Stmt/Id"),
        (
            statement(&ns, ENTRY).replace(
                "<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>",
                "",
            ),
            "Stmt/Acct",
        ),
        (
            statement(&ns, ENTRY).replace(r#"<Amt Ccy="EUR">10.50</Amt>"#, ""),
            "Ntry/Amt",
        ),
        (
            statement(&ns, ENTRY).replace("<CdtDbtInd>CRDT</CdtDbtInd>", ""),
            "Ntry/CdtDbtInd",
        ),
    ];
    for (xml, path) in cases {
        assert_eq!(read(&xml), Err(CamtError::Missing { path }));
    }
    let err = read(&statement(&ns, ENTRY).replace("<MsgId>M1</MsgId>", "")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the file lacks the required element GrpHdr/MsgId"
    );
}

#[test]
fn bad_values_are_refused_with_their_line() {
    let ns = format!("{ISO}camt.053.001.04");
    let with = |from: &str, to: &str| read(&statement(&ns, &ENTRY.replace(from, to)));

    for amount in ["10,50", "-10.50", "", "1e3"] {
        let err = with("10.50", amount).unwrap_err();
        assert!(
            matches!(&err, CamtError::BadAmount { path: "Ntry/Amt", line: 3, value, .. } if value == amount),
            "{amount}: {err:?}"
        );
    }
    let err = with(r#"Ccy="EUR""#, r#"Ccy="euro""#).unwrap_err();
    assert!(matches!(err, CamtError::BadAmount { .. }));
    let err = with(r#" Ccy="EUR""#, "").unwrap_err();
    assert!(matches!(err, CamtError::BadAmount { .. }));

    let err = with("2024-01-31", "31.01.2024").unwrap_err();
    assert_eq!(
        err,
        CamtError::BadDate {
            path: "Ntry/BookgDt",
            line: 4,
            value: "31.01.2024".into()
        }
    );
    assert_eq!(
        err.to_string(),
        r#"Ntry/BookgDt on line 4 holds "31.01.2024", which is not a date"#
    );

    let err = with("CRDT", "CREDIT").unwrap_err();
    assert!(matches!(
        err,
        CamtError::BadValue {
            path: "Ntry/CdtDbtInd",
            ..
        }
    ));

    let err = with("10.50", "10,50").unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"Ntry/Amt on line 3 holds "10,50", which is not an exact amount: only digits and one decimal point are allowed"#
    );
}
