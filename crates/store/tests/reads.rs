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

/// Batches read by [`find_values`] in the lookups test (a `FindAll` is a plain function).
static BATCHES_READ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[derive(diesel::QueryableByName)]
struct Kept {
    #[diesel(sql_type = diesel::sql_types::Text)]
    k: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    v: i64,
}

/// The values of `keys`; a batch holding `damaged` fails as a row that does not decode.
fn find_values(db: &mut Db<'_>, keys: &[String]) -> diesel::QueryResult<Vec<(String, i64)>> {
    use diesel::RunQueryDsl;
    BATCHES_READ.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    if keys.iter().any(|k| k == "damaged") {
        return Err(diesel::result::Error::DeserializationError(
            "a damaged row".into(),
        ));
    }
    let Db::Sqlite(c) = db else { unreachable!() };
    let rows: Vec<Kept> = diesel::sql_query("SELECT k, v FROM kv").load(*c)?;
    Ok(rows
        .into_iter()
        .filter(|r| keys.contains(&r.k))
        .map(|r| (r.k, r.v))
        .collect())
}

fn find_value(db: &mut Db<'_>, key: &str) -> diesel::QueryResult<Option<i64>> {
    Ok(find_values(db, &[key.to_string()])?.pop().map(|(_, v)| v))
}

/// Reads that arrive together are one batch, each answered with its own value (or none);
/// a batch that fails is read again key by key, so only the damaged key's read fails.
#[tokio::test]
async fn lookups_that_arrive_together_are_read_at_once_and_fail_only_alone() {
    use std::sync::atomic::Ordering;
    let (_dir, url) = db_url("lookups");
    let store = Store::connect(&url, &PoolOptions::default()).unwrap();
    store
        .query(|db| {
            execute(
                db,
                "CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL); \
                 INSERT INTO kv VALUES ('a', 1), ('b', 2), ('c', 3);",
            )
        })
        .await
        .unwrap();
    let lookups = coffer_store::Lookups::new(store.clone(), (1, 64), find_values);

    let asked = ["a", "b", "c", "missing"];
    let reads = (0..60).map(|i| lookups.find("client", asked[i % 4].to_string()));
    let answers = futures_util::future::join_all(reads).await;
    for (i, answer) in answers.into_iter().enumerate() {
        let expected = [Some(1), Some(2), Some(3), None][i % 4];
        assert_eq!(answer.unwrap(), expected, "read {i} ({})", asked[i % 4]);
    }
    let batches = BATCHES_READ.swap(0, Ordering::SeqCst);
    assert!(batches < 10, "60 reads at once took {batches} statements");

    let asked = ["a", "damaged", "c"];
    let reads = (0..30).map(|i| lookups.find("client", asked[i % 3].to_string()));
    let answers = futures_util::future::join_all(reads).await;
    for (i, answer) in answers.into_iter().enumerate() {
        match asked[i % 3] {
            "a" => assert_eq!(answer.unwrap(), Some(1)),
            "c" => assert_eq!(answer.unwrap(), Some(3)),
            _ => assert!(answer.is_err(), "the damaged key's read fails"),
        }
    }

    // On SQLite each read can go alone instead: as many statements as reads, same answers.
    let alone = coffer_store::Lookups::new(store, (1, 64), find_values).alone_on_sqlite(find_value);
    BATCHES_READ.store(0, Ordering::SeqCst);
    let answers =
        futures_util::future::join_all((0..20).map(|_| alone.find("client", "b".to_string())))
            .await;
    assert!(answers.into_iter().all(|a| a.unwrap() == Some(2)));
    assert_eq!(BATCHES_READ.load(Ordering::SeqCst), 20);
}
