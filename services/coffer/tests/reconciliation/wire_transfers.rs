//! A statement's credits with an RF creditor reference or a QR reference become
//! `bank_transfer` payments, each once however many files report it.

use super::*;

/// One booked entry of a statement: the bank's reference for it, the structured
/// creditor reference (none: only a free remittance line), the amount, the debtor's name
/// and IBAN, and the direction (`CRDT` or `DBIT`).
struct Credit<'a> {
    bank_reference: &'a str,
    reference: Option<&'a str>,
    amount: &'a str,
    debtor: (&'a str, &'a str),
    direction: &'a str,
}

impl<'a> Credit<'a> {
    fn new(bank_reference: &'a str, reference: Option<&'a str>, amount: &'a str) -> Self {
        Credit {
            bank_reference,
            reference,
            amount,
            debtor: ("Anna Beispiel", "CH5604835012345678009"),
            direction: "CRDT",
        }
    }
}

/// A camt.053.001.04 statement in CHF with one entry (of one transaction) per credit.
fn transfers(message_id: &str, credits: &[Credit<'_>]) -> Vec<u8> {
    let day = today();
    let mut entries = String::new();
    for c in credits {
        let remittance = match c.reference {
            Some(r) => format!(
                "<Strd><CdtrRefInf><Tp><CdOrPrtry><Prtry>QRR</Prtry></CdOrPrtry></Tp>\
                 <Ref>{r}</Ref></CdtrRefInf></Strd>"
            ),
            None => "<Ustrd>Spende Herbst</Ustrd>".to_owned(),
        };
        let (name, iban) = c.debtor;
        entries.push_str(&format!(
            r#"<Ntry>
    <Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>{direction}</CdtDbtInd><Sts>BOOK</Sts>
    <BookgDt><Dt>{day}</Dt></BookgDt><ValDt><Dt>{day}</Dt></ValDt>
    <AcctSvcrRef>{bank}</AcctSvcrRef>
    <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>VCOM</SubFmlyCd></Fmly></Domn></BkTxCd>
    <NtryDtls><TxDtls>
     <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
     <Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>{direction}</CdtDbtInd>
     <RltdPties><Dbtr><Nm>{name}</Nm><PstlAdr><StrtNm>Bahnhofstrasse</StrtNm><PstCd>8001</PstCd><TwnNm>Zürich</TwnNm><Ctry>CH</Ctry></PstlAdr></Dbtr>
      <DbtrAcct><Id><IBAN>{iban}</IBAN></Id></DbtrAcct></RltdPties>
     <RmtInf>{remittance}</RmtInf>
    </TxDtls></NtryDtls>
   </Ntry>
   "#,
            amount = c.amount,
            direction = c.direction,
            bank = c.bank_reference,
        ));
    }
    statement_of(message_id, IBAN, "CHF", &entries)
}

const RF: &str = "RF18 5390 0754 7034";
const QR: &str = "210000000003139471430009017";

/// The account's `bank_transfer` payments, as a search counts them.
async fn bank_transfers(client: &Client, account: &Value) -> u64 {
    let (status, found) = client
        .post(
            "/search/payments",
            json!({"query": {"$match": {"payment_method": "bank_transfer", "account_uuid": account}}}),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    found["summary"]["hits"].as_u64().unwrap()
}

#[tokio::test]
async fn credits_with_a_valid_reference_become_bank_transfer_payments_once() {
    let (_dir, _server, client, c) = start().await;
    let account = c["account_uuids"][0].clone();
    let transfers_blueprint = blueprint(&client, &c, "camt.053", "match_wire_transfers").await;
    let mut qr = Credit::new("WT-2", Some(QR), "40.50");
    qr.debtor = ("Beat Muster", "CH9300762011623852957");
    let mut debit = Credit::new("WT-5", Some(QR), "99.95");
    debit.direction = "DBIT";
    let file = transfers(
        "STMT-W1",
        &[
            Credit::new("WT-1", Some(RF), "125.00"),
            qr,
            // RF18… with one digit changed: its check digits fail.
            Credit::new("WT-3", Some("RF18539007547035"), "10.00"),
            Credit::new("WT-4", None, "20.00"),
            debit,
        ],
    );
    let report = client
        .report(&transfers_blueprint, "transfers.xml", file.clone())
        .await;
    assert_eq!(report["status"], "processed", "{report}");
    assert_eq!(report["created_count"], 2, "{report}");
    assert_eq!(report["unmatched_count"], 3, "{report}");
    assert!(report["notes"].as_array().unwrap().is_empty(), "{report}");
    let created = report["entries"]["created"].as_array().unwrap();
    assert_eq!(created[0]["kind"], "wire_transfer_received");
    assert_eq!(created[0]["reference"], "RF18539007547034");
    assert_eq!(created[0]["reference_type"], "creditor_reference");
    assert_eq!(created[0]["amount"]["value"], 12500);
    assert_eq!(created[1]["reference"], QR);
    assert_eq!(created[1]["reference_type"], "qr_reference");
    let reasons: Vec<(&Value, &str)> = report["entries"]["unmatched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (&u["entry"], u["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        [
            (
                &json!(2),
                "creditor reference RF18539007547035 fails its check digits (ISO 11649, mod 97)"
            ),
            (
                &json!(3),
                "no creditor or QR reference (RmtInf/Strd/CdtrRefInf/Ref)"
            ),
            (&json!(4), "a debit: wire transfers are credits"),
        ]
    );

    // Each valid credit is a succeeded payment under its transfer's id.
    let uuid = |i: usize| created[i]["transfer_uuid"].as_str().unwrap().to_owned();
    let rf = client
        .until(&format!("/payments/{}", uuid(0)), |p| {
            p["status"] == "succeeded"
        })
        .await;
    assert_eq!(rf["payment_method"], "bank_transfer");
    assert_eq!(rf["amount"], json!({"value": "12500", "currency": "CHF"}));
    assert_eq!(rf["value_date"], today());
    assert_eq!(rf["test_mode"], false);
    assert_eq!(rf["supporter"]["raw_name"], "Anna Beispiel");
    assert_eq!(rf["supporter"]["city"], "Zürich");
    assert_eq!(
        rf["payment_information"],
        json!({"reference": "RF18539007547034", "reference_type": "creditor_reference",
               "iban": "CH56*************8009", "account_holder": "Anna Beispiel"})
    );
    let qr = client
        .until(&format!("/payments/{}", uuid(1)), |p| {
            p["status"] == "succeeded"
        })
        .await;
    assert_eq!(qr["amount"], json!({"value": "4050", "currency": "CHF"}));
    assert_eq!(qr["value_date"], today());
    assert_eq!(qr["supporter"]["raw_name"], "Beat Muster");
    assert_eq!(qr["payment_information"]["reference_type"], "qr_reference");
    assert_eq!(bank_transfers(&client, &account).await, 2);
    // No provider holds a bank transfer, so Coffer cannot give it back.
    let (status, refused) = client
        .post(&format!("/payments/{}/refunds", uuid(0)), json!({}))
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("payment_uuid") && refused.to_string().contains("bank_file"),
        "{refused}"
    );

    // The same bytes again: a duplicate, nothing announced.
    let dup = client.report(&transfers_blueprint, "again.xml", file).await;
    assert_eq!(dup["status"], "duplicate", "{dup}");
    assert_eq!(dup["created_count"], 0);

    // The RF credit again in the next day's statement (a new message id), beside a new
    // credit: the same transfer, so the new credit is the only new payment.
    let later = transfers(
        "STMT-W2",
        &[
            Credit::new("WT-1", Some(RF), "125.00"),
            Credit::new("WT-6", Some("000000000002016030002820804"), "7.00"),
        ],
    );
    let again = client
        .report(&transfers_blueprint, "later.xml", later)
        .await;
    assert_eq!(again["status"], "processed", "{again}");
    assert_eq!(again["created_count"], 2, "{again}");
    let created_again = again["entries"]["created"].as_array().unwrap();
    assert_eq!(created_again[0]["transfer_uuid"], uuid(0));
    let new = created_again[1]["transfer_uuid"].as_str().unwrap();
    client
        .until(&format!("/payments/{new}"), |p| p["status"] == "succeeded")
        .await;
    assert_eq!(bank_transfers(&client, &account).await, 3);
    let (_, unchanged) = client.get(&format!("/payments/{}", uuid(0))).await;
    assert_eq!(unchanged, rf, "the first payment is as it was");
}
