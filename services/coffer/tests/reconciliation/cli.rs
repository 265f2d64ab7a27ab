//! The operator reads a file from the command line.

use super::*;

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
