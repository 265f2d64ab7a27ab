//! Reconciliation end to end against `coffer dev`, as a charity's finance team goes through
//! it: the test provider pays out the day's card payments less fees and a refund, the bank
//! statement (camt.053) shows the credit, and the payout and its payments are matched and
//! dated; a direct-debit notification (camt.054) settles a pending collection, records one
//! Coffer never started and fails a returned one; credits with an RF or QR reference
//! become bank-transfer payments; the same file twice changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod direct_debits;
mod failures;
mod hostile;
mod payouts;
mod samples;
mod uploads;
mod wire_transfers;

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

    /// The report of one file sent through the deprecated execute operation.
    async fn report(&self, blueprint: &str, name: &str, file: Vec<u8>) -> Value {
        let res = self.execute(blueprint, vec![(name, file)]).await;
        res.json().await.unwrap()
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
    let entries = format!(
        r#"<Ntry>
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
   </Ntry>"#
    );
    statement_of(message_id, iban, currency, &entries)
}

/// A camt.053.001.04 statement of today for the account `iban` in `currency`, holding
/// `entries` (its `Ntry` elements).
fn statement_of(message_id: &str, iban: &str, currency: &str, entries: &str) -> Vec<u8> {
    let day = today();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04">
 <BkToCstmrStmt>
  <GrpHdr><MsgId>{message_id}</MsgId><CreDtTm>{day}T06:00:00</CreDtTm></GrpHdr>
  <Stmt>
   <Id>{message_id}-1</Id>
   <Acct><Id><IBAN>{iban}</IBAN></Id><Ccy>{currency}</Ccy></Acct>
   {entries}
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
