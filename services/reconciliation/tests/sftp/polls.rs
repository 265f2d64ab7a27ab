//! Waiting on the source's polls from outside, as a client would: letting the clock bring
//! the next poll, and reading the reports and file rows a poll left.

use coffer_model::clock::Clock;
use serde_json::{Value, json};

use super::common::*;
use super::server::server;
use super::setup::sftp_source;

pub(crate) fn today(w: &World) -> String {
    w.app.clock.now().date().to_string()
}

pub(crate) async fn reports(app: &TestApp, token: &str, account: &str) -> Vec<Value> {
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
pub(crate) async fn next_poll(w: &World, token: &str, source: &str) -> Value {
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
pub(crate) async fn a_whole_poll(w: &World, token: &str, source: &str) -> Value {
    next_poll(w, token, source).await;
    next_poll(w, token, source).await
}

/// A file is read by the poll after the one that first lists it: waits for the source's
/// first poll, then lets the next come.
pub(crate) async fn second_poll(w: &World, token: &str, source: &str) -> Value {
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
pub(crate) async fn first_report(
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
pub(crate) async fn the_one_read(w: &World, token: &str, account: &str, uuid: String) -> Value {
    use coffer_reconciliation::files::store as files;
    let row = w.more[0]
        .query(move |db| files::find(db, &uuid))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row.status,
        coffer_reconciliation::files::domain::FileStatus::Done
    );
    let all = reports(&w.app, token, account).await;
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(row.report_uuid.as_deref(), all[0]["uuid"].as_str());
    all[0].clone()
}
