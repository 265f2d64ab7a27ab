//! The outbox and inbox tables have one owner, crates/events' migration set, which every
//! event-carrying service includes. A database made before that set existed holds both
//! tables already (from the service's own first migration, with rows in them); it must
//! migrate without losing a pending event or an inbox row.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use coffer_events::local_bus::{self, LocalBus};
use coffer_store::{Store, db_run};
use coffer_testkit::Backend;
use common::*;
use diesel::RunQueryDsl;
use diesel::connection::SimpleConnection;
use uuid::Uuid;

/// The two tables as services created them before the split, with an event published
/// (and marked, as the relay did then), one still to go, and one handled event in them.
fn old_tables(backend: Backend) -> String {
    let seq = match backend {
        Backend::Postgres => "BIGSERIAL PRIMARY KEY",
        Backend::Sqlite => "INTEGER PRIMARY KEY AUTOINCREMENT",
    };
    format!(
        "CREATE TABLE outbox (seq {seq}, event_id TEXT NOT NULL UNIQUE, topic TEXT NOT NULL,
             message_key TEXT NOT NULL, partition_no INTEGER NOT NULL, payload TEXT NOT NULL,
             traceparent TEXT, created_ms BIGINT NOT NULL, published_ms BIGINT);
         CREATE INDEX outbox_pending_idx ON outbox (partition_no, seq) WHERE published_ms IS NULL;
         CREATE TABLE inbox (consumer TEXT NOT NULL, event_id TEXT NOT NULL,
             handled_ms BIGINT NOT NULL, PRIMARY KEY (consumer, event_id));
         INSERT INTO inbox VALUES ('old-consumer', 'old-event', 1);
         INSERT INTO outbox (event_id, topic, message_key, partition_no, payload, created_ms, published_ms)
             VALUES ('old-published', 'elsewhere', 'k', 0, '{{}}', 1, 2),
                    ('old-pending', 'elsewhere', 'k', 0, '{{}}', 1, NULL);"
    )
}

async fn count(store: &Store, sql: &'static str) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    store
        .query(move |db| db_run!(db: { diesel::sql_query(sql).get_result::<N>(db) }))
        .await
        .unwrap()
        .n
}

coffer_testkit::backend_tests! {
    async fn a_database_from_before_the_shared_set_migrates_and_keeps_its_rows(backend) {
        let (db, bus_db) = (backend_db(backend), backend_db(backend));
        let raw = Store::connect(&db.url, &Default::default()).unwrap();
        let sql = old_tables(backend);
        raw.query(move |conn| db_run!(conn: { conn.batch_execute(&sql) }))
            .await
            .unwrap();

        let store = store(&db, PROBE).await;

        assert_eq!(count(&store, "SELECT COUNT(*) AS n FROM inbox WHERE event_id = 'old-event'").await, 1);
        // Rows published before the relay deleted them are gone; one still to go is kept.
        assert_eq!(count(&store, "SELECT COUNT(*) AS n FROM outbox WHERE event_id = 'old-published'").await, 0);
        assert_eq!(count(&store, "SELECT COUNT(*) AS n FROM outbox WHERE event_id = 'old-pending'").await, 1);
        // The migrated outbox still carries events end to end.
        let bus = Arc::new(LocalBus::new(
            common::store(&bus_db, local_bus::MIGRATIONS).await,
            clock(),
        ));
        let outbox = outbox();
        let event = event(&outbox, Uuid::new_v4(), 1);
        store
            .query(move |conn| conn.write_tx(|tx| coffer_events::append(tx, &[event], None)))
            .await
            .unwrap();
        relay(&store, bus.clone(), &outbox).run_once().await.unwrap();
        let consumer = consumer(&store, bus, "probe.after-split");
        let running = tokio::spawn(async move { consumer.run().await });
        for _ in 0..100 {
            if !effects(&store).await.is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        running.abort();
        assert_eq!(effects(&store).await.len(), 1);
    }

    async fn a_new_database_gets_the_tables_from_the_shared_set_alone(backend) {
        let db = backend_db(backend);
        let store = store(&db, PROBE).await;
        assert_eq!(count(&store, "SELECT COUNT(*) AS n FROM outbox").await, 0);
        assert_eq!(count(&store, "SELECT COUNT(*) AS n FROM inbox").await, 0);
        // Migrating again applies nothing and fails nothing.
        let again = store.clone();
        let applied = tokio::task::spawn_blocking(move || again.migrate(&PROBE)).await.unwrap().unwrap();
        assert_eq!(applied, 0);
    }
}
