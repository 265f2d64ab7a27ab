//! A payout made by the test provider is matched with the statement that shows it, once.

use super::*;

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
    let dup: Value = client.report(&statements, "statement.xml", file).await;
    assert_eq!(dup["status"], "duplicate");
    assert_eq!(dup["duplicate_of"], report["uuid"]);
    assert_eq!(dup["matched_count"], 0);

    // The credit sent again in a statement of its own is not a second match, and says why.
    let file = statement("STMT-AGAIN", IBAN, &amount, "CHF", reference);
    let again: Value = client.report(&statements, "statement.xml", file).await;
    assert_eq!(again["status"], "processed", "{again}");
    assert_eq!(again["matched_count"], 0, "{again}");
    let reasons: Vec<&str> = again["entries"]["unmatched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons.contains(
            &format!(
                "payout {reference} was matched already, by report {}",
                report["uuid"].as_str().unwrap()
            )
            .as_str()
        ),
        "{reasons:?}"
    );

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
