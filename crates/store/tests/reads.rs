//! `Store::read`: the readers' pool of its own.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use coffer_store::{Db, PoolOptions, Store};
use diesel::connection::SimpleConnection;

fn db_url(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::Builder::new().prefix(name).tempdir().unwrap();
    let url = format!("sqlite://{}/db.sqlite", dir.path().display());
    (dir, url)
}

fn execute(db: &mut Db<'_>, sql: &str) -> diesel::QueryResult<()> {
    match db {
        Db::Pg(c) => c.batch_execute(sql),
        Db::Sqlite(c) => c.batch_execute(sql),
    }
}

#[tokio::test]
async fn reads_never_wait_for_a_connection_a_writer_holds_and_cannot_write() {
    let (_dir, url) = db_url("reads");
    // One connection for everything else, held by a writer for the whole test.
    let options = PoolOptions {
        max_connections: 1,
        connect_timeout: std::time::Duration::from_millis(300),
        ..PoolOptions::default()
    };
    let store = Store::connect(&url, &options).unwrap();
    store
        .query(|db| execute(db, "CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1);"))
        .await
        .unwrap();
    let mut held = store.get().unwrap();
    execute(&mut held.db(), "BEGIN IMMEDIATE; INSERT INTO t VALUES (2);").unwrap();

    // The pool's one connection is taken and the write lock held: a read still answers,
    // from before the writer's uncommitted row.
    let n = store
        .read(|db| match db {
            Db::Sqlite(c) => {
                use diesel::RunQueryDsl;
                diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                    "(SELECT COUNT(*) FROM t)",
                ))
                .get_result::<i64>(*c)
            }
            Db::Pg(_) => unreachable!(),
        })
        .await
        .unwrap();
    assert_eq!(n, 1);
    assert!(
        store.query(|_| Ok(())).await.is_err(),
        "the pool's one connection is held"
    );

    // A write through the readers' pool is refused, whatever the lock.
    execute(&mut held.db(), "COMMIT;").unwrap();
    drop(held);
    let refused = store
        .read(|db| execute(db, "INSERT INTO t VALUES (3)"))
        .await;
    assert!(refused.is_err(), "readers refuse writes");
}
