//! Uploads are untrusted: what an attacker or a broken export can send, and that each is
//! refused quickly with a reason, or read exactly when it is merely large or unusual.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use coffer_camt::{CamtError, Decimal, Direction, Limits, parse};
use std::time::{Duration, Instant};

const NS: &str = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.04";

fn statement_with(entries: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="{NS}">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2024-03-01T06:00:00+01:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>STMT-1</Id>
      <Acct><Id><IBAN>CH9300762011623852957</IBAN></Id><Ccy>CHF</Ccy></Acct>
{entries}
    </Stmt>
  </BkToCstmrStmt>
</Document>
"#
    )
}

#[test]
fn billion_laughs_is_refused_as_a_dtd() {
    let xml = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<Document><BkToCstmrStmt><GrpHdr><MsgId>&lol9;</MsgId></GrpHdr></BkToCstmrStmt></Document>"#;
    let err = parse(xml.as_bytes(), &Limits::default()).unwrap_err();
    assert_eq!(err, CamtError::Dtd);
    assert!(err.to_string().contains("document type declaration"));
}

#[test]
fn external_entity_is_refused_as_a_dtd() {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE Document [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<Document xmlns="{NS}"><BkToCstmrStmt><GrpHdr><MsgId>&xxe;</MsgId></GrpHdr></BkToCstmrStmt></Document>"#
    );
    assert_eq!(
        parse(xml.as_bytes(), &Limits::default()),
        Err(CamtError::Dtd)
    );
}

#[test]
fn deep_nesting_is_refused_quickly() {
    let depth = 100_000;
    let xml = format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth));
    let started = Instant::now();
    let err = parse(xml.as_bytes(), &Limits::default()).unwrap_err();
    assert_eq!(err, CamtError::TooDeep { limit: 64 });
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        err.to_string(),
        "the file nests elements more than 64 levels deep"
    );
}

#[test]
fn an_oversized_file_is_refused_before_it_is_read() {
    // Not even XML: the size alone decides.
    let limits = Limits {
        max_bytes: 1024,
        ..Limits::default()
    };
    let garbage = vec![0xFFu8; 1025];
    assert_eq!(
        parse(&garbage, &limits),
        Err(CamtError::TooLarge { limit: 1024 })
    );
    assert!(matches!(
        parse(&garbage[..1024], &limits),
        Err(CamtError::Encoding(_))
    ));

    let default = Limits::default();
    let huge = vec![b'<'; default.max_bytes + 1];
    let started = Instant::now();
    assert_eq!(
        parse(&huge, &default),
        Err(CamtError::TooLarge {
            limit: 128 * 1024 * 1024
        })
    );
    assert!(started.elapsed() < Duration::from_millis(100));
}

#[test]
fn too_many_nodes_are_refused() {
    let entries = ENTRY_TEMPLATE.replace("{amount}", "1.00").repeat(50);
    let xml = statement_with(&entries);
    let limits = Limits {
        max_nodes: 500,
        ..Limits::default()
    };
    assert_eq!(
        parse(xml.as_bytes(), &limits),
        Err(CamtError::TooManyNodes { limit: 500 })
    );
    assert!(parse(xml.as_bytes(), &Limits::default()).is_ok());
}

#[test]
fn malformed_xml_is_reported_with_its_position() {
    let xml = statement_with("<Ntry><Amt Ccy=\"CHF\">1.00</Amt></Ntr>");
    let err = parse(xml.as_bytes(), &Limits::default()).unwrap_err();
    let CamtError::Xml(message) = &err else {
        panic!("{err:?}");
    };
    assert!(message.contains("8:"), "{message}");
    assert!(
        err.to_string()
            .starts_with("the file is not well-formed XML: ")
    );
}

const ENTRY_TEMPLATE: &str = r#"      <Ntry>
        <NtryRef>REF-{n}</NtryRef>
        <Amt Ccy="CHF">{amount}</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <RvslInd>false</RvslInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2024-02-29</Dt></BookgDt>
        <ValDt><Dt>2024-02-29</Dt></ValDt>
        <AcctSvcrRef>ASR-{n}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs><EndToEndId>E2E-{n}</EndToEndId><InstrId>INSTR-{n}</InstrId></Refs>
            <Amt Ccy="CHF">{amount}</Amt>
            <CdtDbtInd>CRDT</CdtDbtInd>
            <RltdPties>
              <Dbtr><Nm>Donor number {n}</Nm><PstlAdr><StrtNm>Bahnhofstrasse</StrtNm><PstCd>8001</PstCd><TwnNm>Zürich</TwnNm><Ctry>CH</Ctry></PstlAdr></Dbtr>
              <DbtrAcct><Id><IBAN>CH5604835012345678009</IBAN></Id></DbtrAcct>
            </RltdPties>
            <RmtInf><Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf>
          </TxDtls>
        </NtryDtls>
        <AddtlNtryInf>Donation</AddtlNtryInf>
      </Ntry>
"#;

#[test]
fn a_fifty_megabyte_statement_is_read_exactly() {
    let mut entries = String::with_capacity(52 * 1024 * 1024);
    let mut expected_cents: i64 = 0;
    let mut count = 0;
    while entries.len() < 50 * 1024 * 1024 {
        // Amounts from 0.01 to 99999.99 with every cent pattern, never a float.
        let cents = (count as i64 * 7919) % 10_000_000 + 1;
        let amount = format!("{}.{:02}", cents / 100, cents % 100);
        let n = count.to_string();
        entries.push_str(
            &ENTRY_TEMPLATE
                .replace("{amount}", &amount)
                .replace("{n}", &n),
        );
        expected_cents += cents;
        count += 1;
    }
    let xml = statement_with(&entries);

    let started = Instant::now();
    let document = parse(xml.as_bytes(), &Limits::default()).unwrap();
    let elapsed = started.elapsed();
    eprintln!(
        "parsed {:.1} MB ({count} entries) in {elapsed:?}",
        xml.len() as f64 / 1e6
    );

    let entries = &document.statements[0].entries;
    assert_eq!(entries.len(), count);
    let total: Decimal = entries.iter().map(|e| e.amount.value).sum();
    assert_eq!(total, Decimal::new(expected_cents, 2));
    let cents: i64 = entries
        .iter()
        .map(|e| e.amount.minor_units(2).unwrap())
        .sum();
    assert_eq!(cents, expected_cents);
    let last = entries.last().unwrap();
    assert_eq!(last.index, count - 1);
    assert_eq!(
        last.transactions[0].end_to_end_id,
        Some(format!("E2E-{}", count - 1))
    );
    assert!(entries.iter().all(|e| e.batch_mismatch.is_none()));
}

#[test]
fn latin1_file_reads_as_utf8() {
    let xml = statement_with(
        &ENTRY_TEMPLATE
            .replace("{amount}", "12.50")
            .replace("{n}", "1"),
    )
    .replace("encoding=\"UTF-8\"", "encoding=\"ISO-8859-1\"");
    // Encode as ISO-8859-1: every character of the text is below U+0100.
    let bytes: Vec<u8> = xml
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect();
    assert!(bytes.contains(&0xFC), "ü must be a single Latin-1 byte");

    let document = parse(&bytes, &Limits::default()).unwrap();
    let debtor = document.statements[0].entries[0].transactions[0]
        .debtor
        .clone()
        .unwrap();
    assert_eq!(debtor.town.as_deref(), Some("Zürich"));

    // The same bytes without the declaration are not UTF-8 and are refused, not garbled.
    let first_line = bytes.iter().position(|&b| b == b'\n').unwrap();
    let undeclared = &bytes[first_line + 1..];
    assert!(matches!(
        parse(undeclared, &Limits::default()),
        Err(CamtError::Encoding(_))
    ));
}

#[test]
fn a_batch_whose_details_do_not_add_up_is_flagged() {
    let entry = r#"      <Ntry>
        <Amt Ccy="CHF">100.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <NtryDtls>
          <Btch><NbOfTxs>3</NbOfTxs><TtlAmt Ccy="CHF">100.00</TtlAmt><CdtDbtInd>CRDT</CdtDbtInd></Btch>
          <TxDtls><Amt Ccy="CHF">50.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></TxDtls>
          <TxDtls><Amt Ccy="CHF">30.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></TxDtls>
          <TxDtls><Amt Ccy="CHF">19.99</Amt><CdtDbtInd>CRDT</CdtDbtInd></TxDtls>
        </NtryDtls>
      </Ntry>
"#;
    let document = parse(statement_with(entry).as_bytes(), &Limits::default()).unwrap();
    let entry = &document.statements[0].entries[0];
    assert_eq!(entry.direction, Direction::Credit);
    let mismatch = entry.batch_mismatch.as_ref().expect("mismatch flagged");
    assert_eq!(
        mismatch.transactions_total.as_ref().unwrap().value,
        Decimal::new(9999, 2)
    );
    assert_eq!(mismatch.batch_total, None);
    assert_eq!(mismatch.foreign_currency, None);

    let fixed = statement_with(&entry_with_last_amount("20.00"));
    let document = parse(fixed.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(document.statements[0].entries[0].batch_mismatch, None);
}

fn entry_with_last_amount(amount: &str) -> String {
    format!(
        r#"<Ntry><Amt Ccy="CHF">100.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
        <NtryDtls><Btch><TtlAmt Ccy="CHF">100.00</TtlAmt></Btch>
          <TxDtls><Amt Ccy="CHF">50.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></TxDtls>
          <TxDtls><Amt Ccy="CHF">30.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></TxDtls>
          <TxDtls><Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd></TxDtls>
        </NtryDtls></Ntry>"#
    )
}

#[test]
fn junk_is_called_junk_not_too_deep() {
    let junk = "<<<>>>".repeat(1000);
    assert!(matches!(
        parse(junk.as_bytes(), &Limits::default()),
        Err(CamtError::Xml(_))
    ));
    let random: Vec<u8> = (0u32..100_000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    match parse(&random, &Limits::default()) {
        Err(CamtError::Encoding(why)) => assert!(why.contains("not valid UTF-8"), "{why}"),
        other => panic!("random bytes gave {other:?}"),
    }
}

#[test]
fn attributes_are_bounded_before_roxmltree_compares_them() {
    // One element with 100,000 attributes took roxmltree 16.6 s: it compares each with
    // every one before it. The pre-scan refuses it from a count.
    let attributes: String = (0..100_000).map(|i| format!(" a{i}=\"1\"")).collect();
    let xml = statement_with(&format!("      <Ntry{attributes}/>\n"));
    let started = Instant::now();
    let err = parse(xml.as_bytes(), &Limits::default()).unwrap_err();
    eprintln!("refused in {:?}", started.elapsed());
    assert_eq!(err, CamtError::TooManyAttributes { limit: 32, line: 8 });
    assert_eq!(
        err.to_string(),
        "an element on line 8 has more than 32 attributes"
    );

    // Many elements of a few attributes each: bounded in the whole file.
    let entries = r#"<Ntry a="1" b="2" c="3"/>"#.repeat(2_000);
    let limits = Limits {
        max_attributes: 5_000,
        ..Limits::default()
    };
    assert_eq!(
        parse(statement_with(&entries).as_bytes(), &limits),
        Err(CamtError::TooManyAttributesInFile { limit: 5_000 })
    );
}

#[test]
fn namespaces_in_scope_are_bounded() {
    // Each level declares more: roxmltree copies those in scope for every element that
    // declares one, so a deep pile of them costs memory and time for every leaf.
    let level = |i: usize| -> String {
        let declared: String = (0..8)
            .map(|j| format!(" xmlns:p{i}x{j}=\"u{j}\""))
            .collect();
        format!("<L{declared}>")
    };
    let opened: String = (0..9).map(level).collect();
    let xml = format!(
        "<Document xmlns=\"{NS}\">{opened}{}</Document>",
        "</L>".repeat(9)
    );
    assert_eq!(
        parse(xml.as_bytes(), &Limits::default()),
        Err(CamtError::TooManyNamespaces { limit: 64, line: 1 })
    );
}

#[test]
fn a_file_denser_than_its_memory_allows_is_refused_before_any_tree() {
    // Empty transactions: nine bytes each, each a whole `Transaction` once read.
    let entry = format!(
        "<Ntry><Amt Ccy=\"CHF\">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><NtryDtls>{}</NtryDtls></Ntry>",
        "<TxDtls/>".repeat(100_000)
    );
    let xml = statement_with(&entry);
    let needed = match parse(
        xml.as_bytes(),
        &Limits {
            max_memory: 0,
            ..Limits::default()
        },
    ) {
        Err(CamtError::TooMuchMemory { needed_mib, .. }) => needed_mib,
        other => panic!("{other:?}"),
    };
    let file_mib = xml.len() as u64 / (1024 * 1024);
    eprintln!("a {} byte file needs about {needed} MiB", xml.len());
    assert!(needed > 20 * file_mib.max(1), "{needed} MiB");
    let limits = Limits {
        max_memory: usize::try_from(needed).unwrap() * 1024 * 1024,
        ..Limits::default()
    };
    let document = parse(xml.as_bytes(), &limits).unwrap();
    assert_eq!(
        document.statements[0].entries[0].transactions.len(),
        100_000
    );
}

#[test]
fn a_deadline_ends_the_reading() {
    let entries = ENTRY_TEMPLATE
        .replace("{amount}", "1.00")
        .replace("{n}", "1")
        .repeat(100);
    let xml = statement_with(&entries);
    let passed = coffer_camt::Deadline::after(Duration::ZERO);
    std::thread::sleep(Duration::from_millis(2));
    let err = coffer_camt::parse_until(xml.as_bytes(), &Limits::default(), &passed).unwrap_err();
    assert_eq!(
        err,
        CamtError::TooSlow {
            allowed: Duration::ZERO
        }
    );
    assert_eq!(
        err.to_string(),
        "reading the file took longer than the 0 s allowed"
    );
    let ample = coffer_camt::Deadline::after(Duration::from_secs(600));
    let document = coffer_camt::parse_until(xml.as_bytes(), &Limits::default(), &ample).unwrap();
    assert_eq!(document.statements[0].entries.len(), 100);
}

#[test]
fn errors_inside_entries_name_their_line_in_the_file() {
    let entries: String = (1..=4)
        .map(|n| {
            ENTRY_TEMPLATE
                .replace("{amount}", "1.00")
                .replace("{n}", &n.to_string())
        })
        .collect();
    let per_entry = ENTRY_TEMPLATE.lines().count();
    // Line 8 holds the first entry's first line; the debtor's line is the 17th of one.
    let line = 8 + 3 * per_entry + 16;

    let unclosed = entries.replacen(
        "Donor number 4</Nm><PstlAdr><StrtNm>Bahnhofstrasse</StrtNm><PstCd>8001</PstCd><TwnNm>Zürich</TwnNm>",
        "Donor number 4</Nm><PstlAdr><StrtNm>Bahnhofstrasse</StrtNm><PstCd>8001</PstCd><TwnNm>Zürich</TwnN>",
        1,
    );
    let CamtError::Xml(message) =
        parse(statement_with(&unclosed).as_bytes(), &Limits::default()).unwrap_err()
    else {
        panic!("not an XML error");
    };
    assert!(message.contains(&format!("at {line}:")), "{message}");

    // The transaction's amount, three lines above its debtor.
    let at = entries
        .rfind("<Amt Ccy=\"CHF\">1.00</Amt>\n            <CdtDbtInd>")
        .unwrap();
    let mut bad = entries.clone();
    bad.replace_range(
        at..at + "<Amt Ccy=\"CHF\">1.00".len(),
        "<Amt Ccy=\"CHF\">1.0x",
    );
    match parse(statement_with(&bad).as_bytes(), &Limits::default()) {
        Err(CamtError::BadAmount { line: at, .. }) => assert_eq!(at as usize, line - 3),
        other => panic!("{other:?}"),
    }
}
