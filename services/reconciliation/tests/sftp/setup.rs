//! What most tests start from: a reconciliation world whose SFTP sources may reach the
//! test server, a merchant with a pending direct debit and a camt.054 blueprint, and the
//! source that polls the test's directory; and the same databases served by a restarted
//! process.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use coffer_http::Module;
use coffer_http::address_policy::AddressPolicy;
use coffer_reconciliation::{Reconciliation, ReconciliationSettings};
use coffer_secrets::Secrets;
use coffer_store::Store;
use coffer_store::resealing::PassError;
use serde_json::{Value, json};

use super::common::*;
use super::server::{Server, own_directory, server};

fn settings(secrets: Secrets, sftp_addresses: AddressPolicy) -> ReconciliationSettings {
    ReconciliationSettings {
        // Quick looks, so a due poll starts soon after the clock makes it due.
        read_every: Duration::from_millis(200),
        secrets: Some(secrets),
        sftp_addresses,
        ..ReconciliationSettings::default()
    }
}

pub(crate) fn reconciliation(
    h: &coffer_testkit::Harness,
    store: &Store,
    secrets: Secrets,
    sftp_addresses: AddressPolicy,
) -> Arc<dyn Module> {
    let settings = settings(secrets, sftp_addresses);
    Arc::new(Reconciliation::new(
        store.clone(),
        h.clock_arc(),
        h.bus.clone(),
        settings,
    ))
}

/// The same databases served by a new reconciliation process under `secrets`, as it starts
/// (the pass that seals again included), and how its start went. Identity is left out: its
/// signing keys were sealed with keys of the old process, and reconciliation already knows
/// the account; the test's own token signs the requests from here.
pub(crate) async fn restarted(w: World, secrets: Secrets) -> (World, Result<(), PassError>) {
    let store = w.more[0].clone();
    w.restart_trying(|h| async move {
        let settings = settings(secrets, AddressPolicy::parse("127.0.0.0/8").unwrap());
        let started = Reconciliation::start(store, h.clock_arc(), h.bus.clone(), settings).await?;
        Ok(vec![Arc::new(started) as Arc<dyn Module>])
    })
    .await
}

/// The reconciliation world, its SFTP sources allowed to reach `allow` (the test server
/// listens on loopback, which the guard refuses unless allowed).
pub(crate) async fn sftp_world(backend: Backend, allow: &str, secrets: &Secrets) -> World {
    let (secrets, policy) = (secrets.clone(), AddressPolicy::parse(allow).unwrap());
    world_with(
        backend,
        &[coffer_reconciliation::MIGRATIONS],
        move |h, stores| vec![reconciliation(h, &stores[0], secrets, policy)],
    )
    .await
}

/// A merchant, a pending SEPA direct debit of 42.00 EUR, and a camt.054 blueprint that
/// settles collections: (organisation, account, token, payment, blueprint uuid).
pub(crate) async fn direct_debits(w: &World) -> (uuid::Uuid, String, String, Value, String) {
    let (org, account, token) = w.merchant().await;
    let (status, debit, _) = w.post("/payments", &token, &json!({
        "account_uuid": account, "payment_method": "sepa_dd",
        "amount": {"value": "4200", "currency": "EUR"},
        "payment_information": {"iban": "DE89 3704 0044 0532 0130 00", "account_holder": "Erika Mustermann"}}), None).await;
    assert_eq!(status, 201, "{debit}");
    let blueprint = create_when_known(
        w,
        "/reconciliation/blueprints",
        &token,
        &json!({
        "name": "Direct debits", "organisation_uuid": org, "account_uuid": account,
        "message_type": "camt.054", "processing": "create_direct_debit_payments"}),
    )
    .await;
    let blueprint = blueprint["uuid"].as_str().unwrap().to_owned();
    (org, account, token, debit, blueprint)
}

/// Creates an sftp source polling `directory` with `auth` (`{"password": …}` or
/// `{"private_key": …}`); answers its uuid.
pub(crate) async fn sftp_source(
    w: &World,
    token: &str,
    (org, account, blueprint): (uuid::Uuid, &str, &str),
    (host, directory, host_key): (&str, &str, &str),
    auth: Value,
) -> String {
    let s = server();
    let mut sftp = json!({"host": host, "port": s.port, "username": s.user,
        "directory": directory, "poll_seconds": 60, "host_key": host_key});
    for (k, v) in auth.as_object().unwrap() {
        sftp[k] = v.clone();
    }
    let (status, source, _) = w
        .post(
            "/reconciliation/sources",
            token,
            &json!({
        "name": "The bank's server", "organisation_uuid": org, "account_uuid": account,
        "type": "sftp", "blueprint_uuid": blueprint, "sftp": sftp}),
            None,
        )
        .await;
    assert_eq!(status, 201, "{source}");
    source["uuid"].as_str().unwrap().to_owned()
}

/// Where most tests start: the world (its SFTP sources allowed to reach the test server on
/// loopback), a merchant with a pending direct debit and a camt.054 blueprint, and a
/// directory of the test's own on the server.
pub(crate) struct Start {
    pub(crate) s: Server,
    pub(crate) secrets: Secrets,
    pub(crate) w: World,
    pub(crate) org: uuid::Uuid,
    pub(crate) account: String,
    pub(crate) token: String,
    pub(crate) debit: Value,
    pub(crate) blueprint: String,
    pub(crate) here: PathBuf,
    pub(crate) directory: String,
}

pub(crate) async fn start(backend: Backend) -> Start {
    let s = server();
    let secrets = Secrets::ephemeral().unwrap();
    let w = sftp_world(backend, "127.0.0.0/8", &secrets).await;
    let (org, account, token, debit, blueprint) = direct_debits(&w).await;
    let (here, directory) = own_directory(&s);
    Start {
        s,
        secrets,
        w,
        org,
        account,
        token,
        debit,
        blueprint,
        here,
        directory,
    }
}
