//! Group commit (src/group_commit.rs) through the Store's writes, as a service makes them:
//! writes that share a transaction, one that fails among them, a writer at rest, and
//! writers whose runtime stopped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use diesel::connection::SimpleConnection;

use coffer_store::{PoolOptions, Store, StoreError, db_run};

#[tokio::test]
async fn a_failing_write_takes_no_other_down_and_leaves_nothing_behind() {
    let dir = tempfile_dir("failing");
    let url = format!("sqlite://{}/db.sqlite", dir.display());
    let store = Store::connect(&url, &PoolOptions::default()).unwrap();
    store
        .run(|db| {
            db_run!(db: { db.batch_execute("CREATE TABLE t (x INTEGER UNIQUE NOT NULL, y INTEGER)") })
                .map_err(StoreError::from)
        })
        .await
        .unwrap();
    // Twenty writes queued at once, so they share transactions; write 7 repeats write
    // 3's unique value, in a second statement after a first that succeeds.
    let writes: Vec<_> = (0..20)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let x = if i == 7 { 3 } else { i };
                store
                    .write(move |db| {
                        db_run!(db: {
                            db.batch_execute(&format!("INSERT INTO t VALUES ({}, 0)", 100 + i))?;
                            db.batch_execute(&format!("INSERT INTO t VALUES ({x}, {i})"))
                        })
                        .map_err(StoreError::from)
                    })
                    .await
            })
        })
        .collect();
    let mut failures = Vec::new();
    for (i, w) in writes.into_iter().enumerate() {
        if let Err(e) = w.await.unwrap() {
            failures.push((i, e));
        }
    }
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].1.is_unique_violation(), "{failures:?}");
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let rows = store
        .query(|db| {
            db_run!(db: { diesel::RunQueryDsl::load::<N>(diesel::sql_query("SELECT COUNT(*) AS n FROM t"), db) })
        })
        .await
        .unwrap();
    assert_eq!(
        rows[0].n, 38,
        "19 writes of two rows each; none of the failed one's"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// An error type that counts how often it is made, as ApiError logs each time.
#[derive(Debug)]
struct Counted;

static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl From<StoreError> for Counted {
    fn from(_: StoreError) -> Self {
        MADE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Counted
    }
}

impl From<diesel::result::Error> for Counted {
    fn from(_: diesel::result::Error) -> Self {
        MADE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Counted
    }
}

#[tokio::test]
async fn a_write_that_succeeds_makes_no_error_value() {
    let dir = tempfile_dir("quiet");
    let url = format!("sqlite://{}/db.sqlite", dir.display());
    let store = Store::connect(&url, &PoolOptions::default()).unwrap();
    for _ in 0..10 {
        store.write(|_db| Ok::<_, Counted>(())).await.unwrap();
    }
    assert_eq!(MADE.load(std::sync::atomic::Ordering::SeqCst), 0);
    std::fs::remove_dir_all(dir).ok();
}

/// Past the time a writer keeps a resting connection (twice group_commit.rs's `FRESH`).
const RESTED: std::time::Duration = std::time::Duration::from_secs(2);

#[tokio::test]
async fn an_idle_writer_gives_its_connection_back() {
    let dir = tempfile_dir("idle");
    let url = format!("sqlite://{}/db.sqlite", dir.display());
    // One connection in all: while a writer keeps it, nothing else can have it.
    let options = PoolOptions {
        max_connections: 1,
        connect_timeout: std::time::Duration::from_millis(300),
        ..PoolOptions::default()
    };
    let store = Store::connect(&url, &options).unwrap();
    store.write(|_db| Ok::<_, StoreError>(())).await.unwrap();
    tokio::time::sleep(RESTED).await;
    store
        .query(|db| db_run!(db: { db.batch_execute("SELECT 1") }))
        .await
        .expect("a writer that rests keeps no connection from readers");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn writers_that_stopped_with_their_runtime_are_started_again() {
    let dir = tempfile_dir("restart");
    let url = format!("sqlite://{}/db.sqlite", dir.display());
    let store = Store::connect(&url, &PoolOptions::default()).unwrap();
    let write = |store: Store| async move {
        store
            .write(|db| {
                db_run!(db: { db.batch_execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)") })
                    .map_err(StoreError::from)
            })
            .await
    };
    // The first write starts the writers on a runtime that then stops, as an HTTP
    // server's worker does when the server stops.
    let first = tokio::runtime::Runtime::new().unwrap();
    first.block_on(write(store.clone())).unwrap();
    drop(first);
    let second = tokio::runtime::Runtime::new().unwrap();
    second
        .block_on(write(store.clone()))
        .expect("a write after the first runtime stopped");
    std::fs::remove_dir_all(dir).ok();
}

fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "coffer-group-{name}-{}-{nanos}",
        std::process::id()
    ))
}
