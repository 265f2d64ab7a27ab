//! Bank files must not let one tenant slow another, nor take the process down: attributes
//! are bounded before any tree is built, one organisation's files are read while another's
//! are, and a file over the memory budget gets a failed report. Every file is uploaded or
//! sent as a client would, and every report read back through the API.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use coffer_reconciliation::object_store::ObjectStore;
use coffer_uploads::UploadCredentials;
use common::s3::{post_form, s3_store, spec_fields};
use common::*;
use serde_json::{Value, json};

const NS: &str = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.04";

/// A camt.053 statement of about `bytes` bytes: booked credits, none of which names a
/// payout, so each is unmatched.
fn statement(message_id: &str, bytes: usize) -> Vec<u8> {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Document xmlns=\"{NS}\"><BkToCstmrStmt>\n\
         <GrpHdr><MsgId>{message_id}</MsgId></GrpHdr>\n\
         <Stmt><Id>{message_id}-1</Id><Acct><Id><IBAN>CH9300762011623852957</IBAN></Id></Acct>\n"
    )
    .into_bytes();
    let mut i = 0;
    while out.len() < bytes {
        writeln!(
            out,
            "<Ntry><Amt Ccy=\"CHF\">{}.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>\
             <BookgDt><Dt>2026-11-21</Dt></BookgDt><NtryDtls><TxDtls><Refs><EndToEndId>E2E-{i}\
             </EndToEndId></Refs><RltdPties><Dbtr><Nm>Supporter {i}</Nm></Dbtr></RltdPties>\
             <RmtInf><Ustrd>Gift {i}, with thanks</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>",
            10 + i % 500
        )
        .unwrap();
        i += 1;
    }
    out.extend_from_slice(b"</Stmt></BkToCstmrStmt></Document>\n");
    out
}

/// A statement whose one entry carries `attributes` attributes: roxmltree would compare
/// each with every one before it.
fn crowded_element(attributes: usize) -> Vec<u8> {
    let crowd: String = (0..attributes).map(|i| format!(" a{i}=\"1\"")).collect();
    String::from_utf8(statement("CROWDED", 0))
        .unwrap()
        .replace("</Stmt>", &format!("<Ntry{crowd}/></Stmt>"))
        .into_bytes()
}

/// A statement with `elements` elements of 32 attributes each, as many as one may carry.
fn crowded_file(elements: usize) -> Vec<u8> {
    let names: Vec<char> = ('a'..='z').chain('A'..='F').collect();
    let element: String = format!(
        "<X{}/>\n",
        names
            .iter()
            .map(|c| format!(" {c}=\"\""))
            .collect::<String>()
    );
    String::from_utf8(statement("CROWDED-FILE", 0))
        .unwrap()
        .replace("</Stmt>", &format!("{}</Stmt>", element.repeat(elements)))
        .into_bytes()
}

/// Sends `files` to the deprecated execute operation: the report of each.
async fn execute(w: &World, token: &str, blueprint: &str, files: &[(&str, &[u8])]) -> Value {
    let mut body = Vec::new();
    for (name, bytes) in files {
        body.extend_from_slice(
            format!("--XX\r\nContent-Disposition: form-data; name=\"filename\"; filename=\"{name}\"\r\n\r\n")
                .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--XX--\r\n");
    let (status, report) = execute_multipart(w, token, blueprint, body).await;
    assert_eq!(status, 201, "{report}");
    report
}

/// An organisation with a blueprint (`blueprint` is its body without the owner) and an
/// `api_upload` source: (token, account, blueprint uuid, upload credentials).
async fn tenant(w: &World, blueprint: Value) -> (String, String, String, UploadCredentials) {
    let (org, account, token) = w.merchant().await;
    let mut body = blueprint;
    body["organisation_uuid"] = json!(org);
    body["account_uuid"] = json!(account);
    let blueprint = create_when_known(w, "/reconciliation/blueprints", &token, &body).await;
    let (status, source, _) = w
        .post(
            "/reconciliation/sources",
            &token,
            &json!({"name": "Bank", "organisation_uuid": org, "account_uuid": account,
                "type": "api_upload", "blueprint_uuid": blueprint["uuid"]}),
            None,
        )
        .await;
    assert_eq!(status, 201, "{source}");
    let path = format!(
        "/reconciliation/sources/{}/file-upload-credentials",
        source["uuid"].as_str().unwrap()
    );
    let (status, body) = w.get(&path, &token).await;
    assert_eq!(status, 200, "{body}");
    let credentials = serde_json::from_value(body).unwrap();
    let uuid = blueprint["uuid"].as_str().unwrap().to_owned();
    (token, account, uuid, credentials)
}

async fn upload(credentials: &UploadCredentials, name: &str, bytes: &[u8]) {
    let sent = post_form(credentials, &spec_fields(credentials, name), name, bytes).await;
    assert_eq!(sent.status, 204, "{}", sent.body);
}

/// The account's reports once there are `n`, newest first; fails after two minutes.
async fn reports(w: &World, token: &str, account: &str, n: usize) -> Vec<Value> {
    let path = format!("/reconciliation/reports?account_uuid={account}");
    let started = Instant::now();
    loop {
        let (status, body) = w.get(&path, token).await;
        assert_eq!(status, 200, "{body}");
        let listed = body.as_array().unwrap().clone();
        if listed.len() >= n {
            return listed;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{} of {n} reports after two minutes",
            listed.len()
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn by_name<'a>(reports: &'a [Value], name: &str) -> &'a Value {
    reports
        .iter()
        .find(|r| r["file_name"] == name)
        .unwrap_or_else(|| panic!("no report of {name}: {reports:?}"))
}

fn statements_blueprint() -> Value {
    json!({"name": "Statements", "message_type": "camt.053",
        "processing": "match_settlement_payouts"})
}

coffer_testkit::backend_tests! {
    async fn too_many_attributes_are_refused_before_a_tree_is_built(backend) {
        let w = reconciliation_world(backend, Some(ObjectStore::S3(s3_store()))).await;
        // The store checks the policy against its own clock.
        w.app.clock.set(time::OffsetDateTime::now_utc());
        let (token, account, blueprint, credentials) = tenant(&w, statements_blueprint()).await;

        // 100,000 attributes on one element took 16.6 s to refuse before (1.1 MB).
        let crowded = crowded_element(100_000);
        let started = Instant::now();
        let report = execute(&w, &token, &blueprint, &[("crowded.xml", &crowded)]).await;
        eprintln!("{} bytes, one element of 100,000 attributes: answered in {:?}",
            crowded.len(), started.elapsed());
        assert_eq!(report["status"], "failed", "{report}");
        assert_eq!(report["reason"], "an element on line 5 has more than 32 attributes", "{report}");

        // 32 on each element, as many as one may carry, but more than 4 Mi in the file.
        let file = crowded_file(4 * 1024 * 1024 / 32 + 1);
        let started = Instant::now();
        upload(&credentials, "crowded-file.xml", &file).await;
        let listed = reports(&w, &token, &account, 2).await;
        eprintln!("{} bytes, 4 Mi attributes and one more: reported {:?} after the upload",
            file.len(), started.elapsed());
        let report = by_name(&listed, "crowded-file.xml");
        assert_eq!(report["status"], "failed", "{report}");
        assert_eq!(report["reason"], "the file has more than 4194304 attributes", "{report}");
    }

    async fn one_organisation_reading_does_not_hold_up_another(backend) {
        let store = s3_store();
        let w = reconciliation_world(backend, Some(ObjectStore::S3(store))).await;
        w.app.clock.set(time::OffsetDateTime::now_utc());
        let (a_token, a_account, _, a_credentials) = tenant(&w, statements_blueprint()).await;
        let (b_token, b_account, _, b_credentials) = tenant(&w, json!({"name": "Direct debits",
            "message_type": "camt.054", "processing": "create_direct_debit_payments"})).await;

        // A's files: a crowded element, then two large statements, read one after another.
        upload(&a_credentials, "a-crowded.xml", &crowded_element(100_000)).await;
        let large = 12 * 1024 * 1024;
        upload(&a_credentials, "a-large-1.xml", &statement("A-LARGE-1", large)).await;
        upload(&a_credentials, "a-large-2.xml", &statement("A-LARGE-2", large)).await;
        // Once A's first file has its report, A's reading is under way.
        reports(&w, &a_token, &a_account, 1).await;

        let day = time::OffsetDateTime::now_utc().date().to_string();
        let b_file = collected("B-1", "E2E-B-1", "25.00", &day);
        let sent = Instant::now();
        upload(&b_credentials, "b.xml", &b_file).await;
        let b_reports = reports(&w, &b_token, &b_account, 1).await;
        let b_latency = sent.elapsed();
        let (_, a_listed) = w.get(&format!("/reconciliation/reports?account_uuid={a_account}"), &a_token).await;
        let a_done = a_listed.as_array().unwrap().len();
        eprintln!("B's one-entry notification was reported {b_latency:?} after its upload, \
            with {a_done} of A's 3 files reported by then");

        let b = &b_reports[0];
        assert_eq!(b["status"], "processed", "{b}");
        assert_eq!(b["file_name"], "b.xml");
        assert_eq!(b["entry_count"], 1);
        assert_eq!(b["created_count"], 1, "{b}");
        // The point of the test: A was still reading when B's file was read.
        assert!(a_done < 3, "A's files were all read before B's: nothing was shown");

        let started = Instant::now();
        let a_reports = reports(&w, &a_token, &a_account, 3).await;
        eprintln!("A's last report came {:?} after B's", started.elapsed());
        let crowded = by_name(&a_reports, "a-crowded.xml");
        assert_eq!(crowded["status"], "failed", "{crowded}");
        for name in ["a-large-1.xml", "a-large-2.xml"] {
            let report = by_name(&a_reports, name);
            assert_eq!(report["status"], "processed", "{report}");
            assert!(report["entry_count"].as_i64().unwrap() > 30_000, "{report}");
        }
    }

    async fn a_file_over_the_memory_bound_is_reported_and_reading_goes_on(backend) {
        // A budget that a 9 MB statement's share (six times it, and 16 MiB) is over.
        let w = reconciliation_world_with(backend, None, |settings| {
            settings.memory_budget_bytes = 64 * 1024 * 1024;
        }).await;
        let (org, account, token) = w.merchant().await;
        let mut body = statements_blueprint();
        body["organisation_uuid"] = json!(org);
        body["account_uuid"] = json!(account);
        let blueprint = create_when_known(&w, "/reconciliation/blueprints", &token, &body).await;
        let blueprint = blueprint["uuid"].as_str().unwrap();

        let large = statement("LARGE", 9 * 1024 * 1024);
        let report = execute(&w, &token, blueprint, &[("large.xml", &large)]).await;
        assert_eq!(report["status"], "failed", "{report}");
        let reason = report["reason"].as_str().unwrap();
        assert!(reason.starts_with(&format!("the file is {} bytes; reading it takes up to", large.len())), "{reason}");
        assert!(reason.contains("more than the 64 MiB this service reads files within (reconciliation.memory_budget_bytes)"), "{reason}");

        // Small, but far denser than a statement: its own estimate is over its share.
        let dense = String::from_utf8(statement("DENSE", 0)).unwrap().replace("</Stmt>", &format!(
            "<Ntry><Amt Ccy=\"CHF\">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><NtryDtls>{}</NtryDtls></Ntry></Stmt>",
            "<TxDtls/>".repeat(100_000)));
        let report = execute(&w, &token, blueprint, &[("dense.xml", dense.as_bytes())]).await;
        assert_eq!(report["status"], "failed", "{report}");
        let reason = report["reason"].as_str().unwrap();
        assert!(reason.starts_with("reading the file would take about "), "{reason}");

        // The service reads on: a statement within the budget, after both.
        let small = statement("SMALL", 64 * 1024);
        let report = execute(&w, &token, blueprint, &[("small.xml", &small)]).await;
        assert_eq!(report["status"], "processed", "{report}");
        let listed = reports(&w, &token, &account, 3).await;
        assert_eq!(listed.len(), 3);
    }
}
