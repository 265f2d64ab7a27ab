//! What a hostile or careless client sends: amounts no payment can hold, keys the
//! standalone store's disk cannot keep, files under nested keys, and a refund body with a
//! misspelt property. Each is a clear answer, never a 500 or money moved by mistake.

use super::*;

/// A statement credit of `amount` CHF carrying a valid RF creditor reference.
fn credit(bank_reference: &str, amount: &str) -> String {
    let day = today();
    format!(
        r#"<Ntry>
    <Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
    <BookgDt><Dt>{day}</Dt></BookgDt><ValDt><Dt>{day}</Dt></ValDt>
    <AcctSvcrRef>{bank_reference}</AcctSvcrRef>
    <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>VCOM</SubFmlyCd></Fmly></Domn></BkTxCd>
    <NtryDtls><TxDtls>
     <Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>
     <RltdPties><Dbtr><Nm>Anna Beispiel</Nm></Dbtr></RltdPties>
     <RmtInf><Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf>
    </TxDtls></NtryDtls>
   </Ntry>"#
    )
}

#[tokio::test]
async fn an_amount_no_payment_can_hold_is_unmatched_rather_than_announced() {
    let (_dir, _server, client, c) = start().await;
    let transfers = blueprint(&client, &c, "camt.053", "match_wire_transfers").await;
    // CHF 99,999,999,999.99 is the most a payment holds; a centime more cannot be one.
    let entries = [
        credit("HUGE-1", "99999999999.99"),
        credit("HUGE-2", "100000000000.00"),
        credit("HUGE-3", "92233720368547758.07"),
    ]
    .concat();
    let report = client
        .report(
            &transfers,
            "huge.xml",
            statement_of("HUGE-1", IBAN, "CHF", &entries),
        )
        .await;
    assert_eq!(report["status"], "processed", "{report}");
    assert_eq!(report["created_count"], 1, "{report}");
    assert_eq!(report["unmatched_count"], 2, "{report}");
    for (i, text) in [(0, "100000000000.00"), (1, "92233720368547758.07")] {
        let unmatched = &report["entries"]["unmatched"][i];
        assert_eq!(
            unmatched["reason"],
            format!(
                "{text} CHF is more than a payment can hold (at most 9999999999999 minor units)"
            ),
            "{report}"
        );
    }
    // What the report says was created is a payment.
    let created = report["entries"]["created"][0]["transfer_uuid"]
        .as_str()
        .unwrap();
    let paid = client
        .until(&format!("/payments/{created}"), |p| {
            p["status"] == "succeeded"
        })
        .await;
    assert_eq!(
        paid["amount"],
        json!({"value": "9999999999999", "currency": "CHF"})
    );

    // A collection of more than a payment can hold is not announced either.
    let debits = blueprint(&client, &c, "camt.054", "create_direct_debit_payments").await;
    let report = client
        .report(
            &debits,
            "huge054.xml",
            notification(
                "HUGE-054",
                IBAN,
                &[Debit("E2E-HUGE", "M-1", "100000000000.00", None)],
            ),
        )
        .await;
    assert_eq!(report["status"], "processed", "{report}");
    assert_eq!(report["created_count"], 0, "{report}");
    assert_eq!(report["unmatched_count"], 1, "{report}");
}

#[tokio::test]
async fn the_standalone_store_refuses_a_key_its_disk_cannot_keep_and_names_files_by_their_last_segment()
 {
    let (dir, _server, client, c) = start().await;
    let account = c["account_uuids"][0].clone();
    let transfers = blueprint(&client, &c, "camt.053", "match_wire_transfers").await;
    let (_, credentials) = uploads::upload_source(&client, &c, &transfers).await;
    let prefix = credentials["inputs"]["key"].as_str().unwrap().to_owned();
    let file = dir.path().join("statement.xml");
    std::fs::write(
        &file,
        statement_of("NESTED-1", IBAN, "CHF", &credit("NESTED-1", "12.00")),
    )
    .unwrap();

    // A key of 350 bytes is one S3 takes, but no file system keeps a name of 300.
    let long = format!("{prefix}/{}.xml", "a".repeat(300));
    let (status, body) = uploads::curl_upload(&credentials, &long, "long.xml", &file);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("<Code>KeyTooLongError</Code>"), "{body}");
    assert!(body.contains("255"), "{body}");

    // A key below the prefix with folders: the report names the file by its last segment.
    let nested = format!("{prefix}/2026/11/statement.xml");
    let (status, body) = uploads::curl_upload(&credentials, &nested, "statement.xml", &file);
    assert_eq!(status, 204, "{body}");
    let reports = client
        .until(
            &format!(
                "/reconciliation/reports?account_uuid={}",
                account.as_str().unwrap()
            ),
            |r| r.as_array().is_some_and(|r| !r.is_empty()),
        )
        .await;
    assert_eq!(reports[0]["file_name"], "statement.xml", "{reports}");
    assert_eq!(reports[0]["status"], "processed", "{reports}");
}

/// The properties an error body names, in its order.
fn named(refused: &Value) -> Vec<&str> {
    refused["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["property"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_refund_with_a_misspelt_property_refunds_nothing() {
    let (_dir, _server, client, c) = start().await;
    let paid = card_payment(&client, &c["account_uuids"][0], "1050").await;
    let uuid = paid["uuid"].as_str().unwrap();
    // `amont` for `amount`: the client meant CHF 1.00, not the whole payment.
    let (status, refused) = client
        .post(
            &format!("/payments/{uuid}/refunds"),
            json!({"amont": {"value": "100", "currency": "CHF"}, "reason": "typo"}),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(named(&refused), ["amont", "reason"], "{refused}");
    // With a wrong amount beside it, both are named in one answer.
    let (status, refused) = client
        .post(
            &format!("/payments/{uuid}/refunds"),
            json!({"amount": {"value": "-1", "currency": "CHF"}, "x": 1}),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(named(&refused), ["x", "amount.value"], "{refused}");
    let (_, unchanged) = client.get(&format!("/payments/{uuid}")).await;
    assert_eq!(unchanged["refunded_amount"]["value"], "0", "{unchanged}");
    // An empty object still refunds the residual, as no body does.
    let (status, refund) = client
        .post(&format!("/payments/{uuid}/refunds"), json!({}))
        .await;
    assert_eq!(status, 200, "{refund}");
    assert_eq!(refund["amount"]["value"], "1050", "{refund}");
}

#[tokio::test]
async fn an_execute_body_that_is_not_multipart_is_told_what_to_send() {
    let (_dir, _server, client, c) = start().await;
    let transfers = blueprint(&client, &c, "camt.053", "match_wire_transfers").await;
    let path = format!("/reconciliation/blueprints/{transfers}/execute");
    let (status, refused) = client.post(&path, json!({"filename": "camt.xml"})).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        refused["errors"][0]["message"],
        "The request body must be sent as multipart/form-data with a boundary",
        "not actix-multipart's variant name: {refused}"
    );
    // A multipart body cut short.
    let res = client
        .http
        .post(format!("{}{path}", client.base))
        .bearer_auth(&client.token)
        .header("Content-Type", "multipart/form-data; boundary=XX")
        .body(
            "--XX\r\nContent-Disposition: form-data; name=\"filename\"; filename=\"a\"\r\n\r\nabc",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 400);
    let refused: Value = res.json().await.unwrap();
    assert_eq!(
        refused["errors"][0]["message"],
        "The request body is not readable multipart/form-data: it ends early or a part is malformed",
        "{refused}"
    );
}

#[tokio::test]
async fn a_misspelt_list_filter_is_named_not_left_out() {
    let (_dir, _server, client, c) = start().await;
    let account = c["account_uuids"][0].as_str().unwrap();
    for list in [
        "/reconciliation/blueprints",
        "/reconciliation/sources",
        "/reconciliation/reports",
        "/payouts",
    ] {
        let (status, refused) = client.get(&format!("{list}?acount_uuid={account}")).await;
        assert_eq!(status, 400, "{list}: {refused}");
        assert_eq!(
            refused["errors"][0]["property"], "acount_uuid",
            "{list}: {refused}"
        );
        let (status, listed) = client
            .get(&format!("{list}?account_uuid={account}&from=0&size=5"))
            .await;
        assert_eq!(status, 200, "{list}: {listed}");
    }
}
