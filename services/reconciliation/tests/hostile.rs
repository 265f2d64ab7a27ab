//! Text a hostile client slips in: a NUL character, which PostgreSQL's text cannot hold,
//! in a name or in a file's name. Each is a 400 naming it (or kept out of the report), the
//! same on both databases, never a 500. Properties a create does not know are ignored, as
//! API.md says; known ones of the wrong type are each named.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_model::clock::Clock;
use common::*;
use serde_json::{Value, json};

coffer_testkit::backend_tests! {
    async fn a_nul_character_is_refused_by_name_and_never_reaches_the_database(backend) {
        let w = reconciliation_world(backend, None).await;
        let (org, account, token) = w.merchant().await;
        let good = json!({"name": "Notifications", "organisation_uuid": org,
            "account_uuid": account, "message_type": "camt.054",
            "processing": "create_direct_debit_payments"});
        let blueprint = create_when_known(&w, "/reconciliation/blueprints", &token, &good).await;
        let blueprint = blueprint["uuid"].as_str().unwrap();

        let mut bad = good.clone();
        bad["name"] = json!("Notifications\u{0}");
        let (status, refused, _) = w.post("/reconciliation/blueprints", &token, &bad, None).await;
        assert_eq!(status, 400, "{refused}");
        assert_eq!(refused["errors"][0]["property"], "name", "{refused}");

        let (status, refused, _) = w.post("/reconciliation/sources", &token, &json!({
            "name": "Uploads\u{7}", "organisation_uuid": org, "account_uuid": account,
            "type": "sftp", "blueprint_uuid": blueprint,
            "sftp": {"host": "files.example.org", "username": "u\u{0}", "password": "secret",
                "directory": "/out\u{0}", "host_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"}}), None).await;
        assert_eq!(status, 400, "{refused}");
        let named: Vec<&str> = refused["errors"].as_array().unwrap().iter()
            .map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(named, ["name", "sftp.username", "sftp.directory"], "{refused}");

        // A file name with a NUL (RFC 5987's filename*): read, its name shown without it.
        let day = w.app.clock.now().date().to_string();
        let file = collected(&format!("NUL-{account}"), "E2E-NUL", "5.00", &day);
        let mut body = b"--XX\r\nContent-Disposition: form-data; name=\"filename\"; filename*=UTF-8''camt%00.xml\r\n\r\n".to_vec();
        body.extend_from_slice(&file);
        body.extend_from_slice(b"\r\n--XX--\r\n");
        let (status, report) = execute_multipart(&w, &token, blueprint, body).await;
        assert_eq!(status, 201, "{report}");
        assert_eq!(report["status"], "processed", "{report}");
        assert!(!report["file_name"].as_str().unwrap().contains('\u{0}'), "{report}");
    }

    async fn unknown_properties_are_ignored_and_known_ones_of_the_wrong_type_named(backend) {
        let w = reconciliation_world(backend, None).await;
        let (org, account, token) = w.merchant().await;
        let blueprint = create_when_known(&w, "/reconciliation/blueprints", &token, &json!({
            "name": "Notifications", "organisation_uuid": org, "account_uuid": account,
            "message_type": "camt.054", "processing": "create_direct_debit_payments",
            "description": "from the bank's portal", "metadata": {"team": "finance"}})).await;
        assert_eq!(blueprint["name"], "Notifications", "{blueprint}");
        assert!(blueprint.get("description").is_none(), "{blueprint}");
        let blueprint = blueprint["uuid"].as_str().unwrap();

        // At any depth: an unknown property of `sftp` too.
        let host_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
        let sources = [
            json!({"name": "Uploads", "organisation_uuid": org, "account_uuid": account,
                "type": "api_upload", "blueprint_uuid": blueprint, "enabled": true}),
            json!({"name": "The bank's server", "organisation_uuid": org, "account_uuid": account,
                "type": "sftp", "blueprint_uuid": blueprint, "enabled": true,
                "sftp": {"host": "files.example.org", "username": "charity", "password": "secret",
                    "host_key": host_key, "timeout_seconds": 30}}),
        ];
        for body in sources {
            let (status, source, _) = w.post("/reconciliation/sources", &token, &body, None).await;
            assert_eq!(status, 201, "{body}: {source}");
            assert!(source.get("enabled").is_none(), "{source}");
            assert!(source["sftp"].get("timeout_seconds").is_none(), "{source}");
        }

        // A known property of the wrong type is still 400, every one named; the unknown one
        // beside them is not.
        let named = |refused: &Value| {
            let mut named: Vec<String> = refused["errors"].as_array().unwrap().iter()
                .map(|e| e["property"].as_str().unwrap().to_owned()).collect();
            named.sort_unstable();
            named
        };
        let (status, refused, _) = w.post("/reconciliation/blueprints", &token, &json!({
            "name": 5, "organisation_uuid": org, "account_uuid": account,
            "message_type": "camt.054", "processing": "create_direct_debit_payments",
            "ibans": "CH9300762011623852957", "colour": "blue"}), None).await;
        assert_eq!(status, 400, "{refused}");
        assert_eq!(named(&refused), ["ibans", "name"], "{refused}");
        let (status, refused, _) = w.post("/reconciliation/sources", &token, &json!({
            "name": "The bank's server", "organisation_uuid": org, "account_uuid": account,
            "type": "sftp", "blueprint_uuid": 7, "enabled": "yes",
            "sftp": {"host": "files.example.org", "port": "22", "username": "charity",
                "password": "secret", "poll_seconds": "300", "host_key": host_key,
                "timeout_seconds": 30}}), None).await;
        assert_eq!(status, 400, "{refused}");
        assert_eq!(named(&refused), ["blueprint_uuid", "sftp.poll_seconds", "sftp.port"], "{refused}");
    }

    async fn a_malformed_uuid_in_the_path_is_a_400_naming_the_parameter(backend) {
        let w = reconciliation_world(backend, None).await;
        let (_, _, token) = w.merchant().await;
        for (path, parameter) in [
            ("/reconciliation/blueprints/not-a-uuid", "blueprint_uuid"),
            ("/reconciliation/sources/{67e55044-10b1-426f-9247-bb680e5fe0c8}", "source_uuid"),
            ("/reconciliation/sources/67e5504410b1426f9247bb680e5fe0c8/file-upload-credentials", "source_uuid"),
            ("/reconciliation/reports/7", "report_uuid"),
        ] {
            let res = w.app.get(path, &token).await;
            assert_eq!(res.status(), 400, "{path}");
            let body: Value = res.json().await.unwrap();
            assert_eq!(body["errors"][0]["property"], parameter, "{path}: {body}");
            assert_eq!(body["errors"][0]["code"], "error.validation.not_valid", "{path}: {body}");
        }
    }
}
