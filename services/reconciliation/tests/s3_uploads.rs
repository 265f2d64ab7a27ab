//! A bank file uploaded to a real S3-compatible store (s3s-fs, started by scripts/s3.sh)
//! with a source's credentials, as SPEC.md's upload procedure says: read once, its report
//! and events written, the direct debit it reports settled by payments, its object removed.
//! Credentials past their five minutes and keys outside the source's prefix are refused by
//! the store itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_reconciliation::object_store::ObjectStore;
use coffer_uploads::UploadCredentials;
use common::s3::{post_form, s3_store, spec_fields};
use common::*;
use serde_json::json;

coffer_testkit::backend_tests! {
    async fn an_upload_to_s3_is_read_once_and_settles_its_direct_debit(backend) {
        let store = s3_store();
        let w = reconciliation_world(backend, Some(ObjectStore::S3(store.clone()))).await;
        // The store checks the policy against its own clock.
        w.app.clock.set(time::OffsetDateTime::now_utc());
        let (org, account, token) = w.merchant().await;
        let (status, debit, _) = w.post("/payments", &token, &json!({
            "account_uuid": account, "payment_method": "sepa_dd",
            "amount": {"value": "4200", "currency": "EUR"},
            "payment_information": {"iban": "DE89 3704 0044 0532 0130 00", "account_holder": "Erika Mustermann"}}), None).await;
        assert_eq!(status, 201, "{debit}");
        let blueprint = create_when_known(&w, "/reconciliation/blueprints", &token, &json!({
            "name": "Direct debits", "organisation_uuid": org, "account_uuid": account,
            "message_type": "camt.054", "processing": "create_direct_debit_payments"})).await;
        let (status, source, _) = w.post("/reconciliation/sources", &token, &json!({
            "name": "Bank", "organisation_uuid": org, "account_uuid": account, "type": "api_upload",
            "blueprint_uuid": blueprint["uuid"]}), None).await;
        assert_eq!(status, 201, "{source}");
        let source_uuid = source["uuid"].as_str().unwrap();
        let path = format!("/reconciliation/sources/{source_uuid}/file-upload-credentials");
        let (status, body) = w.get(&path, &token).await;
        assert_eq!(status, 200, "{body}");
        let credentials: UploadCredentials = serde_json::from_value(body).unwrap();
        assert_eq!(credentials.attributes.action, store.bucket_url());
        assert_eq!(credentials.inputs.key, format!("sources/{source_uuid}"));

        let day = time::OffsetDateTime::now_utc().date().to_string();
        let file = collected(&format!("S3-{source_uuid}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &day);
        // Outside the prefix: refused by the store.
        let mut outside = spec_fields(&credentials, "notice.xml");
        outside[0].1 = format!("sources/{}/notice.xml", uuid::Uuid::new_v4());
        let refused = post_form(&credentials, &outside, "notice.xml", &file).await;
        assert_ne!(refused.status, 204, "{}", refused.body);
        assert!(refused.status == 403 || refused.status == 400, "{refused:?}");

        let sent = post_form(&credentials, &spec_fields(&credentials, "notice.xml"), "notice.xml", &file).await;
        assert_eq!(sent.status, 204, "{}", sent.body);
        let reports = until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| !a.is_empty())).await;
        let report = &reports[0];
        assert_eq!(report["status"], "processed", "{report}");
        assert_eq!(report["source_uuid"], source_uuid);
        assert_eq!(report["file_name"], "notice.xml");
        assert_eq!(report["created_count"], 1);
        let settled = until(&w, &format!("/payments/{}", debit["uuid"].as_str().unwrap()), &token,
            |p| p["status"] == "succeeded").await;
        assert_eq!(settled["value_date"], day);

        // Read once: its object leaves the bucket, and no second report comes.
        let prefix = format!("sources/{source_uuid}/");
        for _ in 0..200 {
            if coffer_uploads::list(&store, &prefix).await.unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        assert!(coffer_uploads::list(&store, &prefix).await.unwrap().is_empty());
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        let (_, reports) = w.get(&format!("/reconciliation/reports?account_uuid={account}"), &token).await;
        assert_eq!(reports.as_array().unwrap().len(), 1);

        // Credentials issued ten minutes ago have expired at the store.
        w.app.clock.set(time::OffsetDateTime::now_utc() - time::Duration::minutes(10));
        // A token of that moment: the one above would not be valid yet.
        let token = w.token(org).await;
        let (_, body) = w.get(&path, &token).await;
        let stale: UploadCredentials = serde_json::from_value(body).unwrap();
        let late = post_form(&stale, &spec_fields(&stale, "late.xml"), "late.xml", &file).await;
        assert_eq!(late.status, 403, "{}", late.body);
        assert_eq!(late.error_code(), Some("AccessDenied"));
    }
}
