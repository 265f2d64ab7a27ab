//! The third-party camt samples: each is read, or says it holds no statement.

use super::*;

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
            let r: Value = client.report(&blueprints[kind], &name, bytes).await;
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
