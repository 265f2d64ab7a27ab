//! SFTP sources against a real SFTP server (asyncssh, started by scripts/sftp.sh; `make
//! test` hands its address and keys over as COFFER_TEST_SFTP): a bank file dropped in the
//! source's directory is read once, settles its direct debit and moves to `processed/`,
//! with a password or a private key; a server showing another host key is refused before
//! anything is read; a restart between two polls reads nothing twice; a file recorded
//! before a crash is read once by the next poll; a file still growing is read only once a
//! poll finds it as the one before did; the waiting row of a file gone from the server is
//! forgotten, that of a file read never; a private address is refused unless allowed; a
//! name listed with control characters is reported without them; a source's password
//! sealed again at start outlives the master key that first sealed it. Each test has its own
//! directory under the server's root.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../common/mod.rs"]
mod common;
mod stability;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use coffer_http::Module;
use coffer_http::address_policy::AddressPolicy;
use coffer_model::clock::Clock;
use coffer_reconciliation::{Reconciliation, ReconciliationSettings};
use coffer_secrets::Secrets;
use coffer_store::Store;
use coffer_store::resealing::PassError;
use coffer_testkit::master_keys;
use common::*;
use serde_json::{Value, json};

/// The test server, as scripts/sftp.sh describes it.
struct Server {
    host: String,
    port: u16,
    user: String,
    password: String,
    client_key: PathBuf,
    client_public_key: String,
    host_key: String,
    root: PathBuf,
}

fn server() -> Server {
    let text = std::env::var("COFFER_TEST_SFTP").unwrap_or_else(|_| {
        panic!(
            "COFFER_TEST_SFTP is not set: these tests need the SFTP server of scripts/sftp.sh; \
             run `export COFFER_TEST_SFTP=\"$(scripts/sftp.sh)\"` first (make test does)"
        )
    });
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("COFFER_TEST_SFTP is not the JSON scripts/sftp.sh prints: {e}"));
    let text_of = |k: &str| {
        v[k].as_str()
            .unwrap_or_else(|| panic!("COFFER_TEST_SFTP has no {k}"))
            .to_owned()
    };
    Server {
        host: text_of("host"),
        port: v["port"]
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .expect("COFFER_TEST_SFTP has no port"),
        user: text_of("user"),
        password: text_of("password"),
        client_key: text_of("client_key").into(),
        client_public_key: text_of("client_public_key"),
        host_key: text_of("host_key"),
        root: text_of("root").into(),
    }
}

/// A directory of this test's own under the server's root: (its path here, its path as a
/// session sees it).
fn own_directory(server: &Server) -> (PathBuf, String) {
    let name = uuid::Uuid::new_v4().to_string();
    let here = server.root.join(&name);
    std::fs::create_dir_all(&here).unwrap();
    (here, format!("/{name}"))
}

/// Places a file as a bank's client would: written under a hidden name, then renamed, so a
/// poll never sees it half-written. `mtime` keeps a copy's time the original's.
fn drop_file(dir: &Path, name: &str, bytes: &[u8], mtime: Option<std::time::SystemTime>) {
    let partial = dir.join(format!(".{name}.part"));
    std::fs::write(&partial, bytes).unwrap();
    if let Some(at) = mtime {
        std::fs::File::options()
            .write(true)
            .open(&partial)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }
    std::fs::rename(&partial, dir.join(name)).unwrap();
}

/// Waits until `path` exists (a read file moved to processed/).
async fn until_exists(path: &Path) {
    for _ in 0..400 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{} never appeared", path.display());
}

fn settings(secrets: Secrets, sftp_addresses: AddressPolicy) -> ReconciliationSettings {
    ReconciliationSettings {
        // Quick looks, so a due poll starts soon after the clock makes it due.
        read_every: Duration::from_millis(200),
        secrets: Some(secrets),
        sftp_addresses,
        ..ReconciliationSettings::default()
    }
}

fn reconciliation(
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
async fn restarted(w: World, secrets: Secrets) -> (World, Result<(), PassError>) {
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
async fn sftp_world(backend: Backend, allow: &str, secrets: &Secrets) -> World {
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
async fn direct_debits(w: &World) -> (uuid::Uuid, String, String, Value, String) {
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
async fn sftp_source(
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

fn today(w: &World) -> String {
    w.app.clock.now().date().to_string()
}

async fn reports(app: &TestApp, token: &str, account: &str) -> Vec<Value> {
    let res = app
        .get(
            &format!("/reconciliation/reports?account_uuid={account}"),
            token,
        )
        .await;
    assert_eq!(res.status(), 200);
    res.json::<Value>()
        .await
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// Lets polls come (the clock past the interval, and time for the worker to look) and
/// waits until the source was polled at or after the clock's time then.
async fn next_poll(w: &World, token: &str, source: &str) -> Value {
    w.app.clock.advance(time::Duration::seconds(61));
    let at = w.app.clock.unix();
    until(
        w,
        &format!("/reconciliation/sources/{source}"),
        token,
        |s| s["polled"].as_i64().is_some_and(|p| p >= at),
    )
    .await
}

/// Lets a poll come and go: answers the source once the poll after it has begun, so it
/// shows that whole poll's outcome (a poll starts only once the one before is over).
async fn a_whole_poll(w: &World, token: &str, source: &str) -> Value {
    next_poll(w, token, source).await;
    next_poll(w, token, source).await
}

/// Where most tests start: the world (its SFTP sources allowed to reach the test server on
/// loopback), a merchant with a pending direct debit and a camt.054 blueprint, and a
/// directory of the test's own on the server.
struct Start {
    s: Server,
    secrets: Secrets,
    w: World,
    org: uuid::Uuid,
    account: String,
    token: String,
    debit: Value,
    blueprint: String,
    here: PathBuf,
    directory: String,
}

async fn start(backend: Backend) -> Start {
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

/// A file is read by the poll after the one that first lists it: waits for the source's
/// first poll, then lets the next come.
async fn second_poll(w: &World, token: &str, source: &str) -> Value {
    until(
        w,
        &format!("/reconciliation/sources/{source}"),
        token,
        |s| s["polled"].is_i64(),
    )
    .await;
    next_poll(w, token, source).await
}

/// A source signing in with the password to `directory`: answers its uuid and, once the
/// source's second poll has read what lies there, the account's first report.
async fn first_report(
    w: &World,
    token: &str,
    (org, account, blueprint): (uuid::Uuid, &str, &str),
    directory: &str,
) -> (String, Value) {
    let s = server();
    let source = sftp_source(
        w,
        token,
        (org, account, blueprint),
        (&s.host, directory, &s.host_key),
        json!({"password": s.password}),
    )
    .await;
    second_poll(w, token, &source).await;
    let found = until(
        w,
        &format!("/reconciliation/reports?account_uuid={account}"),
        token,
        |r| r.as_array().is_some_and(|a| !a.is_empty()),
    )
    .await;
    (source, found[0].clone())
}

/// The file of row `uuid` was read, and it alone: its row is done and names the account's
/// only report; answers that report.
async fn the_one_read(w: &World, token: &str, account: &str, uuid: String) -> Value {
    use coffer_reconciliation::files::store as files;
    let row = w.more[0]
        .query(move |db| files::find(db, &uuid))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, files::DONE);
    let all = reports(&w.app, token, account).await;
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(row.report_uuid.as_deref(), all[0]["uuid"].as_str());
    all[0].clone()
}

coffer_testkit::backend_tests! {
    async fn a_file_dropped_on_the_server_is_read_once_and_settles_its_direct_debit(backend) {
        let Start { w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("SFTP-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "notice.xml", &file, None);
        // Neither hidden files nor directories are bank files.
        drop_file(&here, ".notes", b"not a bank file", None);
        std::fs::create_dir_all(here.join("archive")).unwrap();

        let (source, report) = first_report(&w, &token, (org, &account, &blueprint), &directory).await;
        assert_eq!(report["status"], "processed", "{report}");
        assert_eq!(report["source_uuid"], source.as_str());
        assert_eq!(report["file_name"], "notice.xml");
        assert_eq!(report["created_count"], 1);
        let settled = until(&w, &format!("/payments/{}", debit["uuid"].as_str().unwrap()), &token,
            |p| p["status"] == "succeeded").await;
        assert_eq!(settled["value_date"], today(&w));

        // Moved to processed/ (made by the poll) once its report was written.
        until_exists(&here.join("processed").join("notice.xml")).await;
        assert!(!here.join("notice.xml").exists());
        assert!(here.join(".notes").exists() && here.join("archive").is_dir());
        let polled = a_whole_poll(&w, &token, &source).await;
        assert!(polled.get("poll_error").is_none(), "{polled}");
        assert_eq!(polled["sftp"]["auth"], "password");
        assert!(polled["sftp"].get("password").is_none());
        assert_eq!(reports(&w.app, &token, &account).await.len(), 1);
        // Left behind only when the test failed, to look at.
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_file_name_listed_with_control_characters_is_reported_without_them(backend) {
        let Start { w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("CTRL-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        // A server may list any name but one with a slash or a NUL: an escape sequence, a
        // bell, a tab and a line break are names too, and no name a report should show.
        let listed = "notice\u{1b}[31m\u{7}\t\r\nday.xml";
        drop_file(&here, listed, &file, None);

        let (source, report) = first_report(&w, &token, (org, &account, &blueprint), &directory).await;
        assert_eq!(report["status"], "processed", "{report}");
        assert_eq!(report["source_uuid"], source.as_str());
        assert_eq!(report["file_name"], "notice[31mday.xml", "{report}");
        let (_, again) = w.get(&format!("/reconciliation/reports/{}", report["uuid"].as_str().unwrap()), &token).await;
        assert_eq!(again["file_name"], "notice[31mday.xml", "{again}");
        // On the server the file keeps its name: it is moved under it.
        until_exists(&here.join("processed").join(listed)).await;
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_source_signs_in_with_its_private_key(backend) {
        let Start { s, w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("KEY-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "camt054.xml", &file, None);

        let key = std::fs::read_to_string(&s.client_key).unwrap();
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.host_key), json!({"private_key": key})).await;
        second_poll(&w, &token, &source).await;
        let found = until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| !a.is_empty())).await;
        assert_eq!(found[0]["status"], "processed", "{}", found[0]);
        assert_eq!(found[0]["source_uuid"], source.as_str());
        until_exists(&here.join("processed").join("camt054.xml")).await;
        let (_, shown) = w.get(&format!("/reconciliation/sources/{source}"), &token).await;
        assert_eq!(shown["sftp"]["auth"], "private_key");
        assert!(shown.get("poll_error").is_none(), "{shown}");
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_server_with_another_host_key_is_refused_before_anything_is_read(backend) {
        let Start { s, w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("MITM-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "notice.xml", &file, None);

        // A real ed25519 key, but not the server's.
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.client_public_key), json!({"password": s.password})).await;
        let shown = until(&w, &format!("/reconciliation/sources/{source}"), &token,
            |s| s.get("poll_error").is_some()).await;
        let error = shown["poll_error"].as_str().unwrap();
        assert!(error.contains("host key") && error.contains("does not match"), "{error}");
        assert!(shown["polled"].is_i64(), "{shown}");
        // Tried again at the next poll, with the same answer; nothing read or moved.
        let again = a_whole_poll(&w, &token, &source).await;
        assert_eq!(again["poll_error"], shown["poll_error"]);
        assert!(here.join("notice.xml").exists());
        assert!(!here.join("processed").exists());
        assert!(reports(&w.app, &token, &account).await.is_empty());
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_restart_between_two_polls_reads_each_file_once(backend) {
        let Start { s, secrets, w, org, account, token, debit, blueprint, here, directory } = start(backend).await;
        let e2e = debit["end_to_end_id"].as_str().unwrap().to_owned();
        let a = collected(&format!("A-{directory}"), &e2e, "42.00", &today(&w));
        drop_file(&here, "a.xml", &a, None);
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.host_key), json!({"password": s.password})).await;
        second_poll(&w, &token, &source).await;
        until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| a.len() == 1)).await;
        let moved = here.join("processed").join("a.xml");
        until_exists(&moved).await;

        // A new process on the same databases and master keys. Identity is left out: its
        // signing keys were sealed with keys of the old process, and reconciliation already
        // knows the account; the test's own token signs the requests from here.
        let World { app, admin, payments, more, faults } = w;
        let store = more[0].clone();
        let restarted_secrets = secrets.clone();
        let app = app.restart(move |h| async move {
            vec![reconciliation(&h, &store, restarted_secrets, AddressPolicy::parse("127.0.0.0/8").unwrap())]
        }).await;
        let w = World { app, admin, payments, more, faults };
        let token = w.app.token_for(&[org]);

        // As if a.xml's move had failed before the restart: the same file (name, size and
        // time) is back in the directory. It is moved again, not read again.
        let mtime = std::fs::metadata(&moved).unwrap().modified().unwrap();
        drop_file(&here, "a.xml", &a, Some(mtime));
        let b = collected(&format!("B-{directory}"), "E2E-OTHER", "7.00", &today(&w));
        drop_file(&here, "b.xml", &b, None);
        // The first poll moves a.xml and records b.xml, the second reads b.xml.
        next_poll(&w, &token, &source).await;
        next_poll(&w, &token, &source).await;
        let found = until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| a.len() >= 2)).await;
        until_exists(&here.join("processed").join("b.xml")).await;
        for _ in 0..400 {
            if !here.join("a.xml").exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(!here.join("a.xml").exists(), "a.xml was never moved again");
        // processed/a.xml is taken: the copy goes beside it under its row's uuid.
        let aside: Vec<String> = std::fs::read_dir(here.join("processed")).unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("a.xml."))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");

        // A whole poll more: nothing more read.
        a_whole_poll(&w, &token, &source).await;
        let all = reports(&w.app, &token, &account).await;
        assert_eq!(all.len(), 2, "{found:?}");
        let mut names: Vec<&str> = all.iter().map(|r| r["file_name"].as_str().unwrap()).collect();
        names.sort_unstable();
        assert_eq!(names, ["a.xml", "b.xml"]);
        assert!(all.iter().all(|r| r["status"] == "processed" && r["source_uuid"] == source.as_str()), "{all:?}");
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_file_recorded_before_a_crash_is_read_by_the_next_poll(backend) {
        let s = server();
        let secrets = Secrets::ephemeral().unwrap();
        let w = sftp_world(backend, "127.0.0.0/8", &secrets).await;
        let (org, account, token, debit, blueprint) = direct_debits(&w).await;
        // The directory is made only after the first poll, which fails for want of it: so
        // that poll is over, and reads nothing, before the test records the file.
        let name = uuid::Uuid::new_v4().to_string();
        let (here, directory) = (s.root.join(&name), format!("/{name}"));
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.host_key), json!({"password": s.password})).await;
        let shown = until(&w, &format!("/reconciliation/sources/{source}"), &token,
            |s| s.get("poll_error").is_some()).await;
        assert!(shown["poll_error"].as_str().unwrap().contains(&directory), "{shown}");

        std::fs::create_dir_all(&here).unwrap();
        let file = collected(&format!("C-{name}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "c.xml", &file, None);
        // The row a poll that died between recording the file and reading it leaves.
        use coffer_reconciliation::files::store as files;
        use coffer_reconciliation::sftp::domain::{Listed, file_place, file_uuid, file_version};
        let meta = std::fs::metadata(here.join("c.xml")).unwrap();
        let since_epoch = meta.modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap();
        let listed = Listed {
            name: "c.xml".into(),
            size: meta.len(),
            mtime: u32::try_from(since_epoch.as_secs()).unwrap(),
        };
        let (place, version) = (file_place(&source, &listed), file_version(&listed));
        let row = files::Row {
            uuid: file_uuid(&place, &version),
            source_uuid: Some(source.clone()),
            blueprint_uuid: blueprint.clone(),
            object_key: place,
            object_version: version,
            name: "c.xml".into(),
            size: i64::try_from(listed.size).unwrap(),
            status: files::WAITING.into(),
            report_uuid: None,
            received: w.app.clock.unix(),
            attempts: 0,
            next_attempt: i64::MAX,
        };
        let uuid = row.uuid.clone();
        let added = w.more[0]
            .write(move |tx| files::receive(tx, &row).map_err(coffer_store::StoreError::from))
            .await
            .unwrap();
        assert!(added);

        // The next poll downloads it again and reads it, once; the error is gone.
        next_poll(&w, &token, &source).await;
        until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| !a.is_empty())).await;
        until_exists(&here.join("processed").join("c.xml")).await;
        let shown = a_whole_poll(&w, &token, &source).await;
        assert!(shown.get("poll_error").is_none(), "{shown}");
        let report = the_one_read(&w, &token, &account, uuid).await;
        assert_eq!(report["status"], "processed");
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_private_address_is_refused_unless_allowed(backend) {
        let s = server();
        let secrets = Secrets::ephemeral().unwrap();
        // No subnet allowed: only public addresses.
        let w = sftp_world(backend, "", &secrets).await;
        let (org, account, token, debit, blueprint) = direct_debits(&w).await;
        let (here, directory) = own_directory(&s);
        let file = collected(&format!("G-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "notice.xml", &file, None);
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            ("127.0.0.1", &directory, &s.host_key), json!({"password": s.password})).await;
        let shown = until(&w, &format!("/reconciliation/sources/{source}"), &token,
            |s| s.get("poll_error").is_some()).await;
        let error = shown["poll_error"].as_str().unwrap();
        assert!(error.contains("127.0.0.1 is not a public address and is not allowed"), "{error}");
        // A name is judged by what it resolves to.
        let named = sftp_source(&w, &token, (org, &account, &blueprint),
            ("localhost", &directory, &s.host_key), json!({"password": s.password})).await;
        let shown = until(&w, &format!("/reconciliation/sources/{named}"), &token,
            |s| s.get("poll_error").is_some()).await;
        assert!(shown["poll_error"].as_str().unwrap().contains("not a public address"), "{shown}");
        assert!(here.join("notice.xml").exists());
        assert!(reports(&w.app, &token, &account).await.is_empty());
        std::fs::remove_dir_all(&here).unwrap();
    }
    async fn a_source_signs_in_after_a_rotation_drops_the_master_key_that_sealed_its_password(backend) {
        let s = server();
        // A key id with `_`, which a LIKE pattern would take for any character.
        let w = sftp_world(backend, "127.0.0.0/8", &master_keys(&[("m_1", 1)], "m_1")).await;
        let (org, account, token, debit, blueprint) = direct_debits(&w).await;
        let (here, directory) = own_directory(&s);
        let a = collected(&format!("R1-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "a.xml", &a, None);
        let (source, _) = first_report(&w, &token, (org, &account, &blueprint), &directory).await;
        until_exists(&here.join("processed").join("a.xml")).await;

        // m2 seals from the next start while m_1 still opens; then m_1 goes, and the next
        // file is still read: the source signs in with its password.
        let (w, started) = restarted(w, master_keys(&[("m_1", 1), ("m2", 2)], "m2")).await;
        started.unwrap();
        let (w, started) = restarted(w, master_keys(&[("m2", 2)], "m2")).await;
        started.unwrap();
        let token = w.app.token_for(&[org]);
        let b = collected(&format!("R2-{directory}"), "E2E-OTHER", "7.00", &today(&w));
        drop_file(&here, "b.xml", &b, None);
        // One poll lists b.xml, the next reads it.
        next_poll(&w, &token, &source).await;
        let shown = next_poll(&w, &token, &source).await;
        assert!(shown.get("poll_error").is_none(), "{shown}");
        until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| a.len() == 2)).await;
        until_exists(&here.join("processed").join("b.xml")).await;

        // A password no configured key opens stops the start, naming its source.
        let (_, started) = restarted(w, master_keys(&[("m9", 9)], "m9")).await;
        let refused = started.unwrap_err().to_string();
        for named in ["sources", source.as_str(), "m2", "secrets.keys"] {
            assert!(refused.contains(named), "{named} in {refused}");
        }
        std::fs::remove_dir_all(&here).unwrap();
    }
}
