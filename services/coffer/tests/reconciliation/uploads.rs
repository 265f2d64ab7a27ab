//! Files that arrive through upload credentials, a fifty-megabyte one among them.

use super::*;

/// Posts `file` with the credentials' fields exactly as SPEC.md's upload procedure lists
/// them, with curl as a finance user would; answers the HTTP status and body.
pub(super) fn curl_upload(
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

/// An `api_upload` source of the first account read by `blueprint`, and its upload
/// credentials: the source's uuid and the credentials' body.
pub(super) async fn upload_source(client: &Client, c: &Value, blueprint: &str) -> (String, Value) {
    let (status, source) = client
        .post(
            "/reconciliation/sources",
            json!({"name": "Bank uploads", "organisation_uuid": c["organisation_uuid"],
            "account_uuid": c["account_uuids"][0], "type": "api_upload", "blueprint_uuid": blueprint}),
        )
        .await;
    assert_eq!(status, 201, "{source}");
    let source_uuid = source["uuid"].as_str().unwrap().to_owned();
    let (status, credentials) = client
        .get(&format!(
            "/reconciliation/sources/{source_uuid}/file-upload-credentials"
        ))
        .await;
    assert_eq!(status, 200, "{credentials}");
    (source_uuid, credentials)
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
    let (source_uuid, credentials) = upload_source(&client, &c, &notifications).await;
    let source_uuid = source_uuid.as_str();
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
