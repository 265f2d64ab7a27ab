//! Reconciliation end to end against `coffer dev`, as a charity's finance team goes through
//! it: the test provider pays out the day's card payments less fees and a refund, the bank
//! statement (camt.053) shows the credit, and the payout and its payments are matched and
//! dated; a direct-debit notification (camt.054) settles a pending collection, records one
//! Coffer never started and fails a returned one; the same file twice changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use serde_json::{Value, json};

struct Client {
    base: String,
    token: String,
    http: reqwest::Client,
}

impl Client {
    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.send(reqwest::Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.send(reqwest::Method::POST, path, Some(body)).await
    }

    /// The deprecated execute operation with `files` as its `filename` parts.
    async fn execute(&self, blueprint: &str, files: Vec<(&str, Vec<u8>)>) -> reqwest::Response {
        let mut form = reqwest::multipart::Form::new();
        for (name, bytes) in files {
            form = form.part(
                "filename",
                reqwest::multipart::Part::bytes(bytes).file_name(name.to_owned()),
            );
        }
        self.http
            .post(format!(
                "{}/reconciliation/blueprints/{blueprint}/execute",
                self.base
            ))
            .bearer_auth(&self.token)
            .multipart(form)
            .send()
            .await
            .unwrap()
    }

    /// Waits (bounded) until `path` answers what `done` looks for.
    async fn until(&self, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..200 {
            let (status, body) = self.get(path).await;
            if status == 200 && done(&body) {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "{path} never became what the test waits for: {:?}",
            self.get(path).await
        );
    }
}

fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

/// A camt.053.001.04 statement with one booked credit carrying `reference` in its
/// remittance information.
fn statement(
    message_id: &str,
    iban: &str,
    amount: &str,
    currency: &str,
    reference: &str,
) -> Vec<u8> {
    let day = today();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04">
 <BkToCstmrStmt>
  <GrpHdr><MsgId>{message_id}</MsgId><CreDtTm>{day}T06:00:00</CreDtTm></GrpHdr>
  <Stmt>
   <Id>{message_id}-1</Id>
   <Acct><Id><IBAN>{iban}</IBAN></Id><Ccy>{currency}</Ccy></Acct>
   <Ntry>
    <Amt Ccy="{currency}">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
    <BookgDt><Dt>{day}</Dt></BookgDt><ValDt><Dt>{day}</Dt></ValDt>
    <AcctSvcrRef>BANK-REF-1</AcctSvcrRef>
    <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
    <NtryDtls><TxDtls>
     <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
     <Amt Ccy="{currency}">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>
     <RmtInf><Ustrd>Coffer payout {reference}</Ustrd></RmtInf>
    </TxDtls></NtryDtls>
   </Ntry>
   <Ntry>
    <Amt Ccy="{currency}">99.95</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
    <BookgDt><Dt>{day}</Dt></BookgDt><ValDt><Dt>{day}</Dt></ValDt>
    <BkTxCd><Prtry><Cd>RENT</Cd></Prtry></BkTxCd>
   </Ntry>
  </Stmt>
 </BkToCstmrStmt>
</Document>"#
    )
    .into_bytes()
}

/// One transaction of a direct-debit notification: (end-to-end id, mandate, amount,
/// return reason).
struct Debit<'a>(&'a str, &'a str, &'a str, Option<&'a str>);

/// A camt.054.001.04 notification with one batch entry of `debits`, ISO-8859-1 encoded
/// as some banks still send it.
fn notification(message_id: &str, iban: &str, debits: &[Debit<'_>]) -> Vec<u8> {
    let day = today();
    let mut txs = String::new();
    let mut total = 0i64;
    for Debit(e2e, mandate, amount, reason) in debits {
        let cents: i64 = amount.replace('.', "").parse().unwrap();
        let (direction, rtr) = match reason {
            Some(code) => {
                total -= cents;
                (
                    "DBIT",
                    format!("<RtrInf><Rsn><Cd>{code}</Cd></Rsn></RtrInf>"),
                )
            }
            None => {
                total += cents;
                ("CRDT", String::new())
            }
        };
        txs.push_str(&format!(
            "<TxDtls><Refs><EndToEndId>{e2e}</EndToEndId><MndtId>{mandate}</MndtId></Refs>\
             <Amt Ccy=\"EUR\">{amount}</Amt><CdtDbtInd>{direction}</CdtDbtInd>\
             <RltdPties><Dbtr><Nm>Jürg Müller</Nm><PstlAdr><TwnNm>Zürich</TwnNm><Ctry>CH</Ctry></PstlAdr></Dbtr>\
             <DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties>{rtr}</TxDtls>"
        ));
    }
    let entry = format!("{}.{:02}", total / 100, total % 100);
    let xml = format!(
        r#"<?xml version="1.0" encoding="ISO-8859-1"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.04">
 <BkToCstmrDbtCdtNtfctn>
  <GrpHdr><MsgId>{message_id}</MsgId><CreDtTm>{day}T06:00:00</CreDtTm></GrpHdr>
  <Ntfctn>
   <Id>{message_id}-1</Id>
   <Acct><Id><IBAN>{iban}</IBAN></Id></Acct>
   <Ntry>
    <Amt Ccy="EUR">{entry}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
    <BookgDt><Dt>{day}</Dt></BookgDt><ValDt><Dt>{day}</Dt></ValDt>
    <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RDDT</Cd><SubFmlyCd>ESDD</SubFmlyCd></Fmly></Domn></BkTxCd>
    <NtryDtls>{txs}</NtryDtls>
   </Ntry>
  </Ntfctn>
 </BkToCstmrDbtCdtNtfctn>
</Document>"#
    );
    // Latin-1: every character of the text above is below U+0100.
    xml.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect()
}

const IBAN: &str = "CH9300762011623852957";

/// The third-party camt samples beside the repository, or where `COFFER_TEST_CAMT_SAMPLES`
/// says (`make test` sets it from scripts/testdata.sh for clones elsewhere).
fn samples() -> std::path::PathBuf {
    std::env::var_os("COFFER_TEST_CAMT_SAMPLES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata/camt")
        })
}

async fn start() -> (tempfile::TempDir, common::Server, Client, Value) {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::start(dir.path());
    let c = common::credentials(dir.path(), &mut server).await;
    let client = Client {
        base: c["base_url"].as_str().unwrap().to_owned(),
        token: common::demo_token(&c).await,
        http: reqwest::Client::new(),
    };
    (dir, server, client, c)
}

async fn blueprint(client: &Client, c: &Value, message_type: &str, processing: &str) -> String {
    let (status, b) = client
        .post(
            "/reconciliation/blueprints",
            json!({"name": format!("{message_type} files"), "organisation_uuid": c["organisation_uuid"],
                "account_uuid": c["account_uuids"][0], "message_type": message_type,
                "processing": processing, "ibans": [IBAN]}),
        )
        .await;
    assert_eq!(status, 201, "{b}");
    b["uuid"].as_str().unwrap().to_owned()
}

async fn card_payment(client: &Client, account: &Value, value: &str) -> Value {
    let (status, paid) = client
        .post("/payments", json!({"account_uuid": account, "payment_method": "card",
            "amount": {"value": value, "currency": "CHF"},
            "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}}))
        .await;
    assert_eq!(status, 201, "{paid}");
    assert_eq!(paid["status"], "succeeded");
    paid
}

#[tokio::test]
async fn a_payout_is_matched_with_the_statement_that_shows_it() {
    let (dir, _server, client, c) = start().await;
    let account = c["account_uuids"][0].clone();
    let a = card_payment(&client, &account, "10000").await;
    let b = card_payment(&client, &account, "2550").await;
    let (status, refund) = client
        .post(
            &format!("/payments/{}/refunds", a["uuid"].as_str().unwrap()),
            json!({"amount": {"value": "1000", "currency": "CHF"}}),
        )
        .await;
    assert_eq!(status, 200, "{refund}");

    let settled = common::admin(
        dir.path(),
        &["payouts", "settle", "--account", account.as_str().unwrap()],
    );
    let payout = &settled["payouts"][0];
    // 1.9 % + 0.25: 190 + 25 on 100.00, 48 + 25 on 25.50 (48.45 rounds to 48).
    assert_eq!(
        payout["gross"],
        json!({"value": "12550", "currency": "CHF"})
    );
    assert_eq!(payout["fees"]["value"], "288");
    assert_eq!(payout["refunded"]["value"], "1000");
    assert_eq!(payout["amount"]["value"], (12550 - 288 - 1000).to_string());
    assert_eq!(payout["status"], "pending");
    assert_eq!(payout["payment_count"], 2);
    let uuid = payout["uuid"].as_str().unwrap();
    let reference = payout["reference"].as_str().unwrap();
    // Nothing waits any more: a second settlement makes no payout.
    let again = common::admin(
        dir.path(),
        &["payouts", "settle", "--account", account.as_str().unwrap()],
    );
    assert_eq!(again["payouts"], json!([]));

    let (status, list) = client
        .get(&format!(
            "/payouts?account_uuid={}",
            account.as_str().unwrap()
        ))
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert!(
        list[0].get("payments").is_none(),
        "the list form leaves the payments out"
    );
    let (_, one) = client.get(&format!("/payouts/{uuid}")).await;
    // Both payments, each with the fee kept from it.
    let mut paid_out: Vec<(&str, &str)> = one["payments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["payment_uuid"].as_str().unwrap(),
                p["fee"]["value"].as_str().unwrap(),
            )
        })
        .collect();
    paid_out.sort();
    let mut expected = vec![
        (a["uuid"].as_str().unwrap(), "215"),
        (b["uuid"].as_str().unwrap(), "73"),
    ];
    expected.sort();
    assert_eq!(paid_out, expected);
    assert_eq!(one["refunds"][0]["refund_uuid"], refund["uuid"]);

    let statements = blueprint(&client, &c, "camt.053", "match_settlement_payouts").await;
    // The payout reaches reconciliation by its event: until it has, the credit is
    // unmatched, so each try is a new statement.
    let amount = format!("{}.{:02}", 11262 / 100, 11262 % 100);
    let mut report = Value::Null;
    for attempt in 0..100 {
        let file = statement(&format!("STMT-{attempt}"), IBAN, &amount, "CHF", reference);
        let res = client
            .execute(&statements, vec![("statement.xml", file)])
            .await;
        assert_eq!(res.status(), 201);
        assert_eq!(res.headers()["deprecation"], "@1795651200");
        report = res.json().await.unwrap();
        if report["matched_count"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(report["status"], "processed", "{report}");
    assert_eq!(report["matched_count"], 1, "{report}");
    assert_eq!(report["message_type"], "camt.053");
    assert_eq!(report["message_version"], "camt.053.001.04");
    assert_eq!(report["accounts"], json!([IBAN]));
    assert_eq!(
        (
            report["entry_count"].clone(),
            report["transaction_count"].clone()
        ),
        (json!(2), json!(1))
    );
    assert_eq!(
        report["totals"],
        json!([{"currency": "CHF", "credits": amount, "debits": "99.95", "entries": 2}])
    );
    let matched = &report["entries"]["matched"][0];
    assert_eq!(matched["payout_uuid"], uuid);
    assert_eq!(
        matched["amount"],
        json!({"text": amount, "currency": "CHF", "value": 11262})
    );
    assert_eq!(
        report["entries"]["unmatched"][0]["reason"],
        "a debit: payouts are credits"
    );

    // Payments learns of the match by its event.
    let matched = client
        .until(&format!("/payouts/{uuid}"), |p| p["status"] == "matched")
        .await;
    assert_eq!(matched["value_date"], today());
    let (_, dated) = client
        .get(&format!("/payments/{}", b["uuid"].as_str().unwrap()))
        .await;
    assert_eq!(dated["payout_uuid"], uuid);
    assert_eq!(dated["value_date"], today());

    // The same statement again: nothing changes, and its report says whose duplicate it is.
    let file = statement(
        report["message_id"].as_str().unwrap(),
        IBAN,
        &amount,
        "CHF",
        reference,
    );
    let dup: Value = client
        .execute(&statements, vec![("statement.xml", file)])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(dup["status"], "duplicate");
    assert_eq!(dup["duplicate_of"], report["uuid"]);
    assert_eq!(dup["matched_count"], 0);

    let (status, reports) = client.get("/reconciliation/reports?size=500").await;
    assert_eq!(status, 200);
    assert!(
        reports
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uuid"] == report["uuid"])
    );
    let (status, one) = client
        .get(&format!(
            "/reconciliation/reports/{}",
            report["uuid"].as_str().unwrap()
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(one["entries"]["matched"][0]["reference"], reference);
}

#[tokio::test]
async fn a_notification_settles_records_and_returns_direct_debits() {
    let (_dir, _server, client, c) = start().await;
    let account = c["account_uuids"][0].clone();
    let mut pending = Vec::new();
    for value in ["5000", "1500"] {
        let (status, debit) = client
            .post("/payments", json!({"account_uuid": account, "payment_method": "sepa_dd",
                "amount": {"value": value, "currency": "EUR"},
                "payment_information": {"iban": "DE89 3704 0044 0532 0130 00", "account_holder": "Erika Mustermann"}}))
            .await;
        assert_eq!(status, 201, "{debit}");
        assert_eq!(debit["status"], "pending");
        pending.push(debit);
    }
    let e2e = |i: usize| pending[i]["end_to_end_id"].as_str().unwrap().to_owned();
    let mandate = |i: usize| pending[i]["mandate_reference"].as_str().unwrap().to_owned();
    let notifications = blueprint(&client, &c, "camt.054", "create_direct_debit_payments").await;
    let (first_e2e, first_mandate, second_e2e, second_mandate) =
        (e2e(0), mandate(0), e2e(1), mandate(1));
    let file = notification(
        "NTF-1",
        IBAN,
        &[
            Debit(&first_e2e, &first_mandate, "50.00", None),
            Debit("EXT-COLLECTION-7", "EXT-MANDATE-7", "12.50", None),
            Debit(&second_e2e, &second_mandate, "15.00", Some("MD06")),
        ],
    );
    let res = client
        .execute(&notifications, vec![("debits.xml", file.clone())])
        .await;
    assert_eq!(res.status(), 201);
    let report: Value = res.json().await.unwrap();
    assert_eq!(report["status"], "processed", "{report}");
    assert_eq!(report["created_count"], 3, "{report}");
    let created = report["entries"]["created"].as_array().unwrap();
    assert_eq!(created[0]["kind"], "direct_debit_received");
    assert_eq!(created[2]["kind"], "direct_debit_returned");
    assert_eq!(created[2]["reason"], "MD06");

    let settled = client
        .until(
            &format!("/payments/{}", pending[0]["uuid"].as_str().unwrap()),
            |p| p["status"] == "succeeded",
        )
        .await;
    assert_eq!(settled["value_date"], today());
    let returned = client
        .until(
            &format!("/payments/{}", pending[1]["uuid"].as_str().unwrap()),
            |p| p["status"] == "failed",
        )
        .await;
    assert_eq!(returned["status_reason"], "direct_debit_returned");
    assert_eq!(returned["return_reason"], "MD06");
    // The collection Coffer never started is recorded from the file, the debtor as its
    // supporter snapshot (the file was Latin-1).
    let recorded = client
        .until(
            &format!("/payments/{}", created[1]["debit_uuid"].as_str().unwrap()),
            |p| p["status"] == "succeeded",
        )
        .await;
    assert_eq!(
        recorded["amount"],
        json!({"value": "1250", "currency": "EUR"})
    );
    assert_eq!(recorded["supporter"]["raw_name"], "Jürg Müller");
    assert_eq!(
        recorded["payment_information"]["iban"],
        "DE89**************3000"
    );
    assert_eq!(recorded["mandate_reference"], "EXT-MANDATE-7");

    // The same bytes again: a duplicate, and payments sees nothing new.
    let dup: Value = client
        .execute(&notifications, vec![("again.xml", file)])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(dup["status"], "duplicate");
    assert_eq!(dup["created_count"], 0);

    // A collection without an EndToEndId, sent again in another file: the same debit, so
    // one payment.
    let mut debit_uuids = Vec::new();
    for message in ["NTF-2", "NTF-3"] {
        let file = notification(
            message,
            IBAN,
            &[Debit("NOTPROVIDED", "EXT-MANDATE-9", "9.00", None)],
        );
        let r: Value = client
            .execute(&notifications, vec![("n.xml", file)])
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(r["status"], "processed", "{r}");
        debit_uuids.push(r["entries"]["created"][0]["debit_uuid"].clone());
    }
    assert_eq!(debit_uuids[0], debit_uuids[1]);
}

#[tokio::test]
async fn a_file_that_cannot_be_read_fails_whole_and_says_why() {
    let (_dir, _server, client, c) = start().await;
    let statements = blueprint(&client, &c, "camt.053", "match_settlement_payouts").await;
    let laughs = br#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><Document>&lol2;</Document>"#.to_vec();
    let truncated = statement("TRUNC", IBAN, "1.00", "CHF", "X")[..300].to_vec();
    let wrong_account = statement("OTHER", "DE89370400440532013000", "1.00", "CHF", "X");
    let res = client
        .execute(
            &statements,
            vec![
                ("laughs.xml", laughs),
                ("truncated.xml", truncated),
                ("other.xml", wrong_account),
            ],
        )
        .await;
    assert_eq!(res.status(), 201);
    let reports: Value = res.json().await.unwrap();
    let reasons: Vec<&str> = reports
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["status"], "failed", "{r}");
            assert_eq!(r["matched_count"], 0);
            r["reason"].as_str().unwrap()
        })
        .collect();
    assert!(reasons[0].contains("DTD"), "{reasons:?}");
    assert!(!reasons[1].is_empty(), "{reasons:?}");
    assert!(
        reasons[2].contains("DE89370400440532013000") && reasons[2].contains(IBAN),
        "{reasons:?}"
    );
    assert_eq!(reports[2]["message_id"], "OTHER");

    // Over 10 MB the deprecated operation refuses, pointing at upload credentials.
    let big = vec![b' '; 10 * 1024 * 1024 + 1];
    let res = client.execute(&statements, vec![("big.xml", big)]).await;
    assert_eq!(res.status(), 413);
    let body: Value = res.json().await.unwrap();
    assert!(
        body.to_string().contains("file-upload-credentials"),
        "{body}"
    );

    // A camt.054 sent to a camt.053 blueprint, and no file at all.
    let notice = notification("N-1", IBAN, &[Debit("E", "M", "1.00", None)]);
    let r: Value = client
        .execute(&statements, vec![("n.xml", notice)])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        r["reason"],
        "the file is a camt.054 message; the blueprint reads camt.053"
    );
    let res = client.execute(&statements, vec![]).await;
    assert_eq!(res.status(), 400);
    assert_eq!(res.headers()["deprecation"], "@1795651200");

    // Every answer of the deprecated operation says so, refusals before any reading too.
    let nobody = reqwest::Client::new()
        .post(format!(
            "{}/reconciliation/blueprints/{statements}/execute",
            client.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(nobody.status(), 401);
    assert_eq!(nobody.headers()["deprecation"], "@1795651200");
    let missing = client
        .execute(
            &uuid::Uuid::new_v4().to_string(),
            vec![("a.xml", b"<a/>".to_vec())],
        )
        .await;
    assert_eq!(missing.status(), 404);
    assert_eq!(missing.headers()["deprecation"], "@1795651200");
}

#[tokio::test]
async fn every_sample_file_is_read_or_says_it_holds_no_statement() {
    let (_dir, _server, client, c) = start().await;
    let mut blueprints = std::collections::HashMap::new();
    for (message_type, processing) in [
        ("camt.053", "match_settlement_payouts"),
        ("camt.054", "create_direct_debit_payments"),
    ] {
        let (status, b) = client
            .post("/reconciliation/blueprints", json!({"name": message_type, "organisation_uuid": c["organisation_uuid"],
                "account_uuid": c["account_uuids"][0], "message_type": message_type, "processing": processing}))
            .await;
        assert_eq!(status, 201, "{b}");
        blueprints.insert(message_type, b["uuid"].as_str().unwrap().to_owned());
    }
    let root = samples();
    let no_statement = [
        "053_valid_namespace.xml",
        "general_invalid_namespace.xml",
        "camt053.v2.wrong.xml",
    ];
    let (mut read, mut files) = (0, 0);
    for folder in std::fs::read_dir(&root).expect("the shared camt samples") {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&folder).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            if !name.ends_with(".xml") {
                continue;
            }
            files += 1;
            let bytes = std::fs::read(&path).unwrap();
            let kind = if name.contains("054") {
                "camt.054"
            } else {
                "camt.053"
            };
            let r: Value = client
                .execute(&blueprints[kind], vec![(&name, bytes)])
                .await
                .json()
                .await
                .unwrap();
            if no_statement.contains(&name.as_str()) {
                assert_eq!(r["status"], "failed", "{name}: {r}");
                let reason = r["reason"].as_str().unwrap();
                assert!(
                    reason.contains("statement") || reason.contains("camt.053"),
                    "{name}: {reason}"
                );
            } else {
                assert!(
                    r["status"] == "processed" || r["status"] == "duplicate",
                    "{name}: {r}"
                );
                assert!(r["entry_count"].as_i64().unwrap() >= 0);
                read += 1;
            }
        }
    }
    assert_eq!(
        read,
        files - no_statement.len(),
        "every other sample is read"
    );
    assert!(read >= 25, "the samples are where they should be");
}

/// Posts `file` with the credentials' fields exactly as SPEC.md's upload procedure lists
/// them, with curl as a finance user would; answers the HTTP status and body.
fn curl_upload(
    credentials: &Value,
    key: &str,
    name: &str,
    file: &std::path::Path,
) -> (u16, String) {
    let inputs = &credentials["inputs"];
    let field = |k: &str| format!("{k}={}", inputs[k].as_str().unwrap());
    let mut args = vec![
        "-s".to_owned(),
        "-o".to_owned(),
        "-".to_owned(),
        "-w".to_owned(),
        "\n%{http_code}".to_owned(),
        "-F".to_owned(),
        format!("key={key}"),
    ];
    for k in [
        "X-Amz-Credential",
        "X-Amz-Algorithm",
        "X-Amz-Date",
        "X-Amz-Signature",
        "Policy",
    ] {
        args.push("-F".into());
        args.push(field(k));
    }
    args.extend([
        "-F".into(),
        format!("X-Amz-Meta-Name={name}"),
        "-F".into(),
        "Content-Type=xml".into(),
        "-F".into(),
        format!("file=@{}", file.display()),
        credentials["attributes"]["action"]
            .as_str()
            .unwrap()
            .to_owned(),
    ]);
    let out = std::process::Command::new("curl")
        .args(&args)
        .output()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, status) = text.rsplit_once('\n').unwrap();
    (status.parse().unwrap(), body.to_owned())
}

#[tokio::test]
async fn a_file_uploaded_with_credentials_is_read_once() {
    let (dir, _server, client, c) = start().await;
    let account = c["account_uuids"][0].clone();
    let (status, debit) = client
        .post("/payments", json!({"account_uuid": account, "payment_method": "sepa_dd",
            "amount": {"value": "2000", "currency": "EUR"},
            "payment_information": {"iban": "DE89 3704 0044 0532 0130 00", "account_holder": "Erika Mustermann"}}))
        .await;
    assert_eq!(status, 201, "{debit}");
    let notifications = blueprint(&client, &c, "camt.054", "create_direct_debit_payments").await;
    let (status, source) = client
        .post(
            "/reconciliation/sources",
            json!({"name": "Bank uploads", "organisation_uuid": c["organisation_uuid"],
            "account_uuid": account, "type": "api_upload", "blueprint_uuid": notifications}),
        )
        .await;
    assert_eq!(status, 201, "{source}");
    let source_uuid = source["uuid"].as_str().unwrap();

    let (status, credentials) = client
        .get(&format!(
            "/reconciliation/sources/{source_uuid}/file-upload-credentials"
        ))
        .await;
    assert_eq!(status, 200, "{credentials}");
    let prefix = credentials["inputs"]["key"].as_str().unwrap().to_owned();
    assert_eq!(prefix, format!("sources/{source_uuid}"));
    assert_eq!(credentials["inputs"]["X-Amz-Algorithm"], "AWS4-HMAC-SHA256");
    assert_eq!(credentials["attributes"]["method"], "POST");
    assert_eq!(credentials["attributes"]["enctype"], "multipart/form-data");
    assert_eq!(
        credentials["attributes"]["action"],
        format!("{}/reconciliation-uploads", client.base)
    );
    let expires = credentials["expires_at"].as_i64().unwrap();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    assert!(
        (now + 295..=now + 305).contains(&expires),
        "{expires} is not in five minutes"
    );

    let e2e = debit["end_to_end_id"].as_str().unwrap().to_owned();
    let mandate = debit["mandate_reference"].as_str().unwrap().to_owned();
    let file = dir.path().join("camt054.xml");
    std::fs::write(
        &file,
        notification("UPLOAD-1", IBAN, &[Debit(&e2e, &mandate, "20.00", None)]),
    )
    .unwrap();

    // A key outside the source's prefix, and a signature that is not the store's.
    let (status, body) = curl_upload(
        &credentials,
        "sources/elsewhere/camt054.xml",
        "camt054.xml",
        &file,
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("<Code>AccessDenied</Code>"), "{body}");
    let mut forged = credentials.clone();
    forged["inputs"]["X-Amz-Signature"] = json!("0".repeat(64));
    let (status, body) = curl_upload(
        &forged,
        &format!("{prefix}/camt054.xml"),
        "camt054.xml",
        &file,
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("SignatureDoesNotMatch"), "{body}");

    let (status, body) = curl_upload(
        &credentials,
        &format!("{prefix}/camt054.xml"),
        "camt054.xml",
        &file,
    );
    assert_eq!(status, 204, "{body}");

    let path = format!(
        "/reconciliation/reports?account_uuid={}",
        account.as_str().unwrap()
    );
    let reports = client
        .until(&path, |r| {
            r.as_array()
                .is_some_and(|a| a.iter().any(|r| r["source_uuid"] == source_uuid))
        })
        .await;
    let report = reports
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["source_uuid"] == source_uuid)
        .unwrap()
        .clone();
    assert_eq!(report["status"], "processed", "{report}");
    assert_eq!(report["file_name"], "camt054.xml");
    assert_eq!(report["created_count"], 1);
    let settled = client
        .until(
            &format!("/payments/{}", debit["uuid"].as_str().unwrap()),
            |p| p["status"] == "succeeded",
        )
        .await;
    assert_eq!(settled["value_date"], today());

    // Read once: the same upload again is a new file with the same bytes, a duplicate.
    let (status, _) = curl_upload(
        &credentials,
        &format!("{prefix}/camt054-again.xml"),
        "camt054-again.xml",
        &file,
    );
    assert_eq!(status, 204);
    let reports = client
        .until(&path, |r| {
            r.as_array()
                .is_some_and(|a| a.iter().filter(|r| r["source_uuid"] == source_uuid).count() == 2)
        })
        .await;
    let again = reports
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file_name"] == "camt054-again.xml")
        .unwrap();
    assert_eq!(again["status"], "duplicate");
    assert_eq!(again["duplicate_of"], report["uuid"]);
    // Banks reuse names: a new file under a key read before is read too.
    std::fs::write(
        &file,
        notification("UPLOAD-2", IBAN, &[Debit("NEXT-1", "M-1", "7.00", None)]),
    )
    .unwrap();
    let (status, _) = curl_upload(
        &credentials,
        &format!("{prefix}/camt054.xml"),
        "camt054.xml",
        &file,
    );
    assert_eq!(status, 204);
    let reports = client
        .until(&path, |r| {
            r.as_array()
                .is_some_and(|a| a.iter().any(|r| r["message_id"] == "UPLOAD-2"))
        })
        .await;
    let reused = reports
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["message_id"] == "UPLOAD-2")
        .unwrap();
    assert_eq!(reused["status"], "processed", "{reused}");
    assert_eq!(reused["file_name"], "camt054.xml");
    // Read files leave the store.
    for _ in 0..100 {
        if std::fs::read_dir(
            dir.path()
                .join("uploads/reconciliation-uploads")
                .join(&prefix),
        )
        .map(|d| d.count())
        .unwrap_or(0)
            == 0
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let leftover = std::fs::read_dir(
        dir.path()
            .join("uploads/reconciliation-uploads")
            .join(&prefix),
    )
    .map(|d| d.count())
    .unwrap_or(0);
    assert_eq!(leftover, 0);
}

#[tokio::test]
async fn the_operator_reads_a_file_from_the_command_line() {
    let (dir, _server, client, c) = start().await;
    let (status, b) = client
        .post("/reconciliation/blueprints", json!({"name": "Statements", "organisation_uuid": c["organisation_uuid"],
            "account_uuid": c["account_uuids"][0], "message_type": "camt.053", "processing": "match_settlement_payouts"}))
        .await;
    assert_eq!(status, 201, "{b}");
    let sample = samples().join("viafintech-camt_parser/053_valid_example_v4.xml");
    let out = std::process::Command::new(common::COFFER)
        .args([
            "reconcile",
            sample.to_str().unwrap(),
            "--blueprint",
            b["uuid"].as_str().unwrap(),
            "--data-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("status             processed"), "{table}");
    assert!(table.contains("camt.053 camt.053.001.04"), "{table}");
    assert!(table.contains("unmatched"), "{table}");
    // The report is the service's own: the API shows it.
    let uuid = table
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .last()
        .unwrap();
    let (status, report) = client.get(&format!("/reconciliation/reports/{uuid}")).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["file_name"], "053_valid_example_v4.xml");

    let missing = std::process::Command::new(common::COFFER)
        .args([
            "reconcile",
            sample.to_str().unwrap(),
            "--blueprint",
            &uuid::Uuid::new_v4().to_string(),
            "--data-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no blueprint"));
}

#[tokio::test]
async fn a_fifty_megabyte_statement_is_uploaded_and_read_whole() {
    let (dir, _server, client, c) = start().await;
    let statements = blueprint(&client, &c, "camt.053", "match_settlement_payouts").await;
    let (status, source) = client
        .post("/reconciliation/sources", json!({"name": "Big statements", "organisation_uuid": c["organisation_uuid"],
            "account_uuid": c["account_uuids"][0], "type": "api_upload", "blueprint_uuid": statements}))
        .await;
    assert_eq!(status, 201, "{source}");
    let source_uuid = source["uuid"].as_str().unwrap();
    // One statement of many small credits: 50 MB, as a large bank's month can be.
    let one = String::from_utf8(statement("BIG-1", IBAN, "12.34", "CHF", "none")).unwrap();
    let start = one.find("<Ntry>").unwrap();
    let end = one.find("</Ntry>").unwrap() + "</Ntry>".len();
    let entry = &one[start..end];
    let copies = 50 * 1024 * 1024 / entry.len() + 1;
    let big = format!("{}{}{}", &one[..start], entry.repeat(copies), &one[end..]);
    let file = dir.path().join("big.xml");
    std::fs::write(&file, &big).unwrap();
    assert!(big.len() > 50 * 1024 * 1024);

    let (_, credentials) = client
        .get(&format!(
            "/reconciliation/sources/{source_uuid}/file-upload-credentials"
        ))
        .await;
    let key = format!("{}/big.xml", credentials["inputs"]["key"].as_str().unwrap());
    let (status, body) = curl_upload(&credentials, &key, "big.xml", &file);
    assert_eq!(status, 204, "{body}");
    let path = format!(
        "/reconciliation/reports?account_uuid={}",
        c["account_uuids"][0].as_str().unwrap()
    );
    let mut report = Value::Null;
    for _ in 0..600 {
        let (_, reports) = client.get(&path).await;
        if let Some(r) = reports
            .as_array()
            .and_then(|a| a.iter().find(|r| r["source_uuid"] == source_uuid))
        {
            report = r.clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(report["status"], "processed", "{report}");
    assert_eq!(
        report["entry_count"],
        json!(copies + 1),
        "every entry, the debit included"
    );
    let credits = format!("{}.{:02}", copies * 1234 / 100, copies * 1234 % 100);
    assert_eq!(report["totals"][0]["credits"], credits);
}
