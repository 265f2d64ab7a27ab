//! Reconciliation under test beside identity and payments, each on its own database,
//! sharing one bus, as in production. The world itself is payments' test world; the S3
//! store is the one scripts/s3.sh starts (`COFFER_TEST_S3`).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../payments/tests/common/mod.rs"]
mod world;

#[path = "../../../../crates/uploads/tests/common/mod.rs"]
pub mod s3;

use std::sync::Arc;
use std::time::Duration;

use coffer_http::Module;
use coffer_reconciliation::object_store::ObjectStore;
use coffer_reconciliation::{Reconciliation, ReconciliationSettings};
use serde_json::Value;
pub use world::*;

pub async fn reconciliation_world(backend: Backend, objects: Option<ObjectStore>) -> World {
    reconciliation_world_with(backend, objects, |_| {}).await
}

/// [`reconciliation_world`] with settings of the test's own (a memory budget, say).
pub async fn reconciliation_world_with(
    backend: Backend,
    objects: Option<ObjectStore>,
    adjust: impl FnOnce(&mut ReconciliationSettings),
) -> World {
    let mut settings = ReconciliationSettings {
        objects,
        // Quick passes, so tests wait little for an upload to be read.
        read_every: Duration::from_millis(200),
        secrets: Some(coffer_secrets::Secrets::ephemeral().unwrap()),
        ..ReconciliationSettings::default()
    };
    adjust(&mut settings);
    world_with(
        backend,
        &[coffer_reconciliation::MIGRATIONS],
        |h, stores| {
            vec![Arc::new(Reconciliation::new(
                stores[0].clone(),
                h.clock_arc(),
                h.bus.clone(),
                settings,
            )) as Arc<dyn Module>]
        },
    )
    .await
}

/// POSTs `body` until reconciliation has learnt of the account from identity's events
/// (until then it is 404), and answers the 201's body.
pub async fn create_when_known(w: &World, path: &str, token: &str, body: &Value) -> Value {
    for _ in 0..400 {
        let (status, created, _) = w.post(path, token, body, None).await;
        match status {
            201 => return created,
            404 => tokio::time::sleep(Duration::from_millis(25)).await,
            _ => panic!("{path}: {status} {created}"),
        }
    }
    panic!("reconciliation never learnt of the account");
}

/// Reads `path` until `done` holds.
pub async fn until(w: &World, path: &str, token: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..400 {
        let (status, body) = w.get(path, token).await;
        if status == 200 && done(&body) {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "{path} never became what the test waits for: {:?}",
        w.get(path, token).await
    );
}

/// A camt.054.001.08 notification of one collected direct debit.
pub fn collected(message_id: &str, end_to_end_id: &str, amount: &str, day: &str) -> Vec<u8> {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
<GrpHdr><MsgId>{message_id}</MsgId><CreDtTm>{day}T05:00:00</CreDtTm></GrpHdr>
<Ntfctn><Id>N1</Id><Acct><Id><IBAN>CH9300762011623852957</IBAN></Id></Acct>
<Ntry><Amt Ccy="EUR">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
<BookgDt><Dt>{day}</Dt></BookgDt><ValDt><Dt>{day}</Dt></ValDt>
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RDDT</Cd><SubFmlyCd>ESDD</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls><Refs><EndToEndId>{end_to_end_id}</EndToEndId></Refs>
<Amt Ccy="EUR">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>
<RltdPties><Dbtr><Pty><Nm>Erika Mustermann</Nm></Pty></Dbtr></RltdPties></TxDtls></NtryDtls>
</Ntry></Ntfctn></BkToCstmrDbtCdtNtfctn></Document>"#
    )
    .into_bytes()
}

/// POSTs a multipart `body` (boundary `XX`) to the blueprint's deprecated execute
/// operation: the status and the answer.
pub async fn execute_multipart(
    w: &World,
    token: &str,
    blueprint: &str,
    body: Vec<u8>,
) -> (u16, Value) {
    let res = w
        .app
        .http
        .post(
            w.app
                .url(&format!("/reconciliation/blueprints/{blueprint}/execute")),
        )
        .bearer_auth(token)
        .header("Content-Type", "multipart/form-data; boundary=XX")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}
