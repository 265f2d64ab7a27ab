//! A file that cannot be read fails whole and says why.

use super::*;

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
    let r: Value = client.report(&statements, "n.xml", notice).await;
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
