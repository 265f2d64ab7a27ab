//! Readiness tells the truth when billing's database will not take a write.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::mpsc;

use common::*;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_fails_while_another_writer_holds_sqlite() {
    let w = billing_world(Backend::Sqlite).await;
    let ready = || async {
        let res = w
            .app
            .http
            .get(w.app.url("/health/ready"))
            .send()
            .await
            .unwrap();
        (res.status().as_u16(), res.json::<Value>().await.unwrap())
    };
    assert_eq!(ready().await.0, 200);

    // Another process's writer (`coffer admin`, a stuck job) takes the write lock and keeps it.
    let billing = w.more[0].clone();
    let (release, released) = mpsc::channel::<()>();
    let (taken, is_taken) = mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        use diesel::connection::SimpleConnection;
        let mut conn = billing.get().unwrap();
        let db = &mut conn.db();
        coffer_store::db_run!(db: { db.batch_execute("BEGIN IMMEDIATE").unwrap() });
        taken.send(()).unwrap();
        released.recv().unwrap();
        coffer_store::db_run!(db: { db.batch_execute("ROLLBACK").unwrap() });
    });
    is_taken.recv().unwrap();
    let (status, body) = ready().await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["checks"]["billing"], "database unreachable", "{body}");

    release.send(()).unwrap();
    holder.join().unwrap();
    assert_eq!(ready().await.0, 200);
}
