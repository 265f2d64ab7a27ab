//! The outbox, relay, in-process bus and consumer together, on each database backend.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use coffer_events::local_bus::{self, LocalBus};
use coffer_events::{Bus, Message, append, outbox};
use coffer_store::{Store, StoreError};
use common::*;
use uuid::Uuid;

struct World {
    store: Store,
    bus: Arc<LocalBus>,
    _dbs: (coffer_testkit::TestDb, coffer_testkit::TestDb),
}

async fn world(backend: coffer_testkit::Backend) -> World {
    let (service_db, bus_db) = (backend_db(backend), backend_db(backend));
    let store = store(&service_db, PROBE).await;
    let bus = Arc::new(LocalBus::new(
        common::store(&bus_db, local_bus::MIGRATIONS).await,
        clock(),
    ));
    World {
        store,
        bus,
        _dbs: (service_db, bus_db),
    }
}

async fn commit(store: &Store, events: Vec<coffer_events::outbox::OutboxEvent>) {
    store
        .query(move |db| db.write_tx(|tx| append(tx, &events, None)))
        .await
        .unwrap();
}

async fn inbox_rows(store: &Store) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    store
        .query(|db| {
            coffer_store::db_run!(db: {
                diesel::RunQueryDsl::get_result::<N>(diesel::sql_query("SELECT COUNT(*) AS n FROM inbox"), db)
            })
        })
        .await
        .unwrap()
        .n
}

/// A bus that, each time it is handed a batch, checks that no transaction of the service's
/// PostgreSQL database is open (the broker is outside the process, so a publish must
/// never keep a transaction waiting on it), then passes the batch on.
struct Watching {
    inner: Arc<LocalBus>,
    service: Store,
    /// One entry per publish: whether no transaction was open.
    seen: std::sync::Mutex<Vec<bool>>,
}

impl Watching {
    async fn no_transaction_open(&self) -> bool {
        #[derive(diesel::QueryableByName)]
        struct N {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let open = self
            .service
            .query(|db| {
                coffer_store::db_run!(db: {
                    diesel::RunQueryDsl::get_result::<N>(diesel::sql_query(
                        "SELECT COUNT(*) AS n FROM pg_stat_activity \
                         WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
                    ), db)
                })
            })
            .await
            .unwrap();
        open.n == 0
    }
}

impl Bus for Watching {
    fn publish<'a>(
        &'a self,
        messages: &'a [Message],
    ) -> coffer_events::bus::BoxFuture<'a, Result<(), coffer_events::BusError>> {
        Box::pin(async move {
            let free = self.no_transaction_open().await;
            self.seen.lock().unwrap().push(free);
            self.inner.publish(messages).await
        })
    }

    fn subscribe<'a>(
        &'a self,
        group: &'a str,
        topics: &'a [String],
    ) -> coffer_events::bus::BoxFuture<
        'a,
        Result<Box<dyn coffer_events::Subscription>, coffer_events::BusError>,
    > {
        self.inner.subscribe(group, topics)
    }

    fn ready(&self) -> coffer_events::bus::BoxFuture<'_, Result<(), coffer_events::BusError>> {
        self.inner.ready()
    }

    fn dead_letter<'a>(
        &'a self,
        group: &'a str,
        message: &'a Message,
        reason: &'a str,
    ) -> coffer_events::bus::BoxFuture<'a, Result<(), coffer_events::BusError>> {
        self.inner.dead_letter(group, message, reason)
    }
}

/// On PostgreSQL (the distributed mode, with Kafka) no transaction waits on the broker.
/// SQLite's relay hands batches to the in-process bus inside its write lock, which is
/// its claim (relay.rs).
#[tokio::test]
async fn on_postgresql_the_relay_publishes_with_no_transaction_open() {
    if !coffer_testkit::Backend::postgres_enabled() {
        return;
    }
    let w = world(coffer_testkit::Backend::Postgres).await;
    let outbox = outbox();
    let batch = (0..50).map(|i| event(&outbox, Uuid::new_v4(), i)).collect();
    commit(&w.store, batch).await;
    let watching = Arc::new(Watching {
        inner: Arc::clone(&w.bus),
        service: w.store.clone(),
        seen: std::sync::Mutex::new(Vec::new()),
    });
    let r = relay(&w.store, watching.clone(), &outbox);
    let mut published = 0;
    loop {
        let n = r.run_once().await.unwrap();
        if n == 0 {
            break;
        }
        published += n;
    }
    assert_eq!(published, 50);
    let seen = watching.seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert!(
        seen.iter().all(|free| *free),
        "a transaction was open while publishing: {seen:?}"
    );
    // And what went out is gone from the outbox, published once.
    assert_eq!(r.run_once().await.unwrap(), 0);
}

/// On SQLite the relay hands its batch to the in-process bus inside the transaction that
/// claims it. With every blocking thread of the runtime taken (here the only one, which the
/// relay's own work holds) the hand-over must still go through: waiting for another thread
/// while holding the outbox's write lock is how `coffer dev` stopped writing when its
/// blocking threads were bounded.
#[test]
fn on_sqlite_the_relay_hands_over_without_another_blocking_thread() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (published, delivered) = runtime.block_on(async {
        let w = world(coffer_testkit::Backend::Sqlite).await;
        let outbox = outbox();
        commit(&w.store, vec![event(&outbox, Uuid::new_v4(), 1)]).await;
        let mut sub = w
            .bus
            .subscribe("raw", &[PROBED.topic("coffer")])
            .await
            .unwrap();
        let bus: Arc<dyn Bus> = w.bus.clone();
        let r = relay(&w.store, bus, &outbox);
        let wait = std::time::Duration::from_secs(10);
        let published = tokio::time::timeout(wait, r.run_once()).await;
        let delivered = match published {
            Ok(Ok(1)) => tokio::time::timeout(wait, sub.next()).await.is_ok(),
            _ => false,
        };
        (published.map(Result::ok), delivered)
    });
    // A relay stuck on its thread would keep the runtime from ever shutting down.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    assert_eq!(
        published,
        Ok(Some(1)),
        "the relay published its one event in time"
    );
    assert!(delivered, "and a consumer of the bus got it");
}

/// On PostgreSQL a relay vacuums the outbox itself once it has deleted enough rows, so its
/// reads do not walk the entries of deleted rows until autovacuum comes by.
#[tokio::test]
async fn on_postgresql_the_relay_vacuums_the_outbox_after_many_deletes() {
    if !coffer_testkit::Backend::postgres_enabled() {
        return;
    }
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    async fn vacuums(store: &Store) -> i64 {
        store
            .query(|db| {
                coffer_store::db_run!(db: {
                    diesel::RunQueryDsl::get_result::<N>(diesel::sql_query(
                        "SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE relname = 'outbox'",
                    ), db)
                })
            })
            .await
            .unwrap()
            .n
    }
    let w = world(coffer_testkit::Backend::Postgres).await;
    let outbox = outbox();
    for round in 0..21 {
        let batch = (0..1000)
            .map(|i| event(&outbox, Uuid::new_v4(), round * 1000 + i))
            .collect();
        commit(&w.store, batch).await;
    }
    assert_eq!(vacuums(&w.store).await, 0);
    let r = relay(&w.store, w.bus.clone(), &outbox);
    let mut published = 0;
    while published < 21_000 {
        let n = r.run_once().await.unwrap();
        assert!(n > 0, "the relay stopped at {published}");
        published += n;
    }
    // Statistics reach the view when a backend reports them, within a second or so.
    for _ in 0..100 {
        if vacuums(&w.store).await > 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the outbox was not vacuumed after 21,000 rows were deleted");
}

coffer_testkit::backend_tests! {
    async fn the_trace_context_rides_from_the_change_to_the_consumer(backend) {
        let w = world(backend).await;
        let outbox = outbox();
        let trace = coffer_events::TraceContext::new_root();
        let events = vec![event(&outbox, Uuid::new_v4(), 1)];
        let t = trace.clone();
        w.store.query(move |db| db.write_tx(|tx| append(tx, &events, Some(&t)))).await.unwrap();
        let mut sub = w.bus.subscribe("raw", &[PROBED.topic("coffer")]).await.unwrap();
        let bus: Arc<dyn Bus> = w.bus.clone();
        relay(&w.store, bus, &outbox).run_once().await.unwrap();
        let delivery = sub.next().await.unwrap();
        let carried = coffer_events::TraceContext::parse(delivery.message.header("traceparent").unwrap()).unwrap();
        assert_eq!(carried.trace_id, trace.trace_id, "same trace");
        assert_ne!(carried.parent_id, trace.parent_id, "a new span for the next hop");
        assert!(delivery.message.header("event_id").is_some());
        assert_eq!(delivery.message.header("event_name"), Some("coffer.event.probe.thing.probed"));
    }

    async fn committed_events_arrive_and_rolled_back_ones_never_exist(backend) {
        let w = world(backend).await;
        let outbox = outbox();
        let kept = event(&outbox, Uuid::new_v4(), 1);
        let dropped = event(&outbox, Uuid::new_v4(), 2);
        let kept_id = kept.event.id.to_string();

        let rolled_back: Result<(), StoreError> = w
            .store
            .run(move |db| {
                db.write_tx(|tx| {
                    append(tx, &[dropped], None)?;
                    Err(diesel::result::Error::RollbackTransaction)
                })
                .map_err(StoreError::from)
            })
            .await;
        assert!(rolled_back.is_err());
        commit(&w.store, vec![kept]).await;
        let pending = w.store.query(outbox::pending_count).await.unwrap();
        assert_eq!(pending, 1, "only the committed event is in the outbox");

        let bus: Arc<dyn Bus> = w.bus.clone();
        let relay = relay(&w.store, Arc::clone(&bus), &outbox);
        assert_eq!(relay.run_once().await.unwrap(), 1);
        assert_eq!(relay.run_once().await.unwrap(), 0, "published rows are not sent again");
        let consumer = consumer(&w.store, bus, "probe");
        let task = tokio::spawn(async move { consumer.run().await });
        let rows = wait_for_effects(&w.store, |rows| !rows.is_empty()).await;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        task.abort();
        assert_eq!(effects(&w.store).await.len(), 1);
        assert_eq!(rows[0].0, kept_id);
    }

    async fn a_message_delivered_twice_is_applied_once(backend) {
        let w = world(backend).await;
        let outbox = outbox();
        let e = event(&outbox, Uuid::new_v4(), 7);
        let message = Message {
            topic: e.topic.clone(),
            key: e.event.object_uuid.to_string(),
            payload: e.event.to_json().unwrap(),
            headers: vec![],
        };
        w.bus.publish(&[message.clone(), message.clone()]).await.unwrap();
        let marker = event(&outbox, Uuid::new_v4(), 8);
        commit(&w.store, vec![marker]).await;
        let bus: Arc<dyn Bus> = w.bus.clone();
        relay(&w.store, Arc::clone(&bus), &outbox).run_once().await.unwrap();
        let consumer = consumer(&w.store, bus, "probe");
        let task = tokio::spawn(async move { consumer.run().await });
        // 7 and 8 are different objects, so lanes may apply 8 first: wait for both, and a
        // while longer for a second application of 7, should there be one.
        wait_for_effects(&w.store, |rows| rows.iter().any(|r| r.2 == 8) && rows.iter().any(|r| r.2 == 7)).await;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        task.abort();
        let rows = effects(&w.store).await;
        assert_eq!(rows.iter().filter(|r| r.2 == 7).count(), 1, "{rows:?}");
    }

    async fn a_poison_event_is_dead_lettered_and_the_rest_flow(backend) {
        let w = world(backend).await;
        let outbox = outbox();
        let object = Uuid::new_v4();
        let poison = outbox.event(&PROBED, object, None, None, serde_json::json!({ "poison": true }));
        let dead_before = coffer_events::metrics::dead_lettered("probe");
        commit(&w.store, vec![event(&outbox, object, 1), poison, event(&outbox, object, 3)]).await;
        // Committed and not yet relayed: what /metrics reports as waiting.
        let (waiting, oldest) = w.store.query(coffer_events::outbox::pending_summary).await.unwrap();
        assert_eq!(waiting, 3);
        assert!(oldest.is_some_and(|ms| ms > 0), "{oldest:?}");
        let bus: Arc<dyn Bus> = w.bus.clone();
        relay(&w.store, Arc::clone(&bus), &outbox).run_once().await.unwrap();
        assert_eq!(w.store.query(coffer_events::outbox::pending_summary).await.unwrap(), (0, None));
        // Something that is not an event at all is set aside too.
        w.bus.publish(&[Message { topic: PROBED.topic("coffer"), key: "x".into(), payload: b"not json".to_vec(), headers: vec![] }]).await.unwrap();
        commit(&w.store, vec![event(&outbox, object, 5)]).await;
        relay(&w.store, Arc::clone(&bus), &outbox).run_once().await.unwrap();

        let consumer = consumer(&w.store, bus, "probe");
        let task = tokio::spawn(async move { consumer.run().await });
        let rows = wait_for_effects(&w.store, |rows| rows.iter().any(|r| r.2 == 5)).await;
        task.abort();
        let sequences: Vec<i64> = rows.iter().map(|r| r.2).collect();
        assert_eq!(sequences, [1, 3, 5]);
        let dead = w.bus.dead_letters("probe").await.unwrap();
        assert_eq!(dead.len(), 2, "{dead:?}");
        assert_eq!(dead[0].1, object.to_string());
        assert!(dead[0].2.contains("poison"));
        assert!(dead[1].2.contains("unreadable"));
        // Counted for /metrics. At least: under `cargo test` the other backend's run of
        // this test, in the same process, counts under the same consumer name.
        assert!(coffer_events::metrics::dead_lettered("probe") - dead_before >= 2);
    }

    async fn events_the_handler_does_not_want_pass_without_a_trace(backend) {
        let w = world(backend).await;
        let outbox = outbox();
        let unwanted = |sequence: i64| outbox.event(&PROBED, Uuid::new_v4(), None, None,
            serde_json::json!({ "sequence": sequence, "unwanted": true }));
        // Alone (a delivery taken by itself), then among wanted ones (a batch in lanes).
        commit(&w.store, vec![unwanted(1)]).await;
        let bus: Arc<dyn Bus> = w.bus.clone();
        relay(&w.store, Arc::clone(&bus), &outbox).run_once().await.unwrap();
        let first = consumer(&w.store, Arc::clone(&bus), "probe");
        let task = tokio::spawn(async move { first.run().await });
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        commit(&w.store, vec![unwanted(2), event(&outbox, Uuid::new_v4(), 3), unwanted(4),
            event(&outbox, Uuid::new_v4(), 5)]).await;
        relay(&w.store, Arc::clone(&bus), &outbox).run_once().await.unwrap();
        wait_for_effects(&w.store, |rows| rows.len() >= 2).await;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        task.abort();
        let mut applied: Vec<i64> = effects(&w.store).await.iter().map(|r| r.2).collect();
        applied.sort_unstable();
        assert_eq!(applied, [3, 5]);
        assert_eq!(inbox_rows(&w.store).await, 2, "no inbox row for an unwanted event");
        // Acknowledged all the same: a restarted consumer finds nothing left to read.
        commit(&w.store, vec![event(&outbox, Uuid::new_v4(), 6)]).await;
        relay(&w.store, Arc::clone(&bus), &outbox).run_once().await.unwrap();
        let second = consumer(&w.store, bus, "probe");
        let task = tokio::spawn(async move { second.run().await });
        wait_for_effects(&w.store, |rows| rows.len() >= 3).await;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        task.abort();
        assert_eq!(effects(&w.store).await.len(), 3);
        assert_eq!(inbox_rows(&w.store).await, 3);
    }

    async fn a_restarted_consumer_resumes_after_its_last_acknowledgement(backend) {
        let w = world(backend).await;
        let outbox = outbox();
        commit(&w.store, (0..5).map(|i| event(&outbox, Uuid::new_v4(), i)).collect()).await;
        let bus: Arc<dyn Bus> = w.bus.clone();
        relay(&w.store, Arc::clone(&bus), &outbox).run_once().await.unwrap();
        let first = consumer(&w.store, Arc::clone(&bus), "probe");
        let task = tokio::spawn(async move { first.run().await });
        wait_for_effects(&w.store, |rows| rows.len() == 5).await;
        task.abort();
        commit(&w.store, (5..8).map(|i| event(&outbox, Uuid::new_v4(), i)).collect()).await;
        relay(&w.store, Arc::clone(&bus), &outbox).run_once().await.unwrap();
        let second = consumer(&w.store, bus, "probe");
        let task = tokio::spawn(async move { second.run().await });
        let rows = wait_for_effects(&w.store, |rows| rows.len() >= 8).await;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        task.abort();
        assert_eq!(effects(&w.store).await.len(), 8);
        // Every event once; each is about an object of its own, and the order between
        // objects is not kept (lanes apply them side by side).
        let mut applied: Vec<i64> = rows.iter().map(|r| r.2).collect();
        applied.sort_unstable();
        assert_eq!(applied, (0..8).collect::<Vec<_>>());
    }

    async fn two_relays_keep_each_objects_order(backend) {
        let w = world(backend).await;
        let outbox = outbox();
        let objects: Vec<Uuid> = (0..20).map(|_| Uuid::new_v4()).collect();
        // Interleaved, so every batch holds many objects' events.
        for round in 0..10 {
            let batch = (0..100).map(|i| event(&outbox, objects[i % 20], round * 100 + i as i64)).collect();
            commit(&w.store, batch).await;
        }
        let bus: Arc<dyn Bus> = w.bus.clone();
        // Each relay with its own connection pool, as two replicas would have.
        let second_store = Store::connect(&w._dbs.0.url, &Default::default()).unwrap();
        let mut relays = Vec::new();
        for store in [w.store.clone(), second_store] {
            let r = relay(&store, Arc::clone(&bus), &outbox);
            relays.push(tokio::spawn(async move {
                let mut n = 0;
                loop {
                    let published = r.run_once().await.unwrap();
                    if published == 0 {
                        break n;
                    }
                    n += published;
                    tokio::task::yield_now().await;
                }
            }));
        }
        let mut total = 0;
        for r in relays {
            total += r.await.unwrap();
        }
        assert_eq!(total, 1000, "every event published exactly once by the relays");
        let consumer = consumer(&w.store, bus, "probe");
        let task = tokio::spawn(async move { consumer.run().await });
        let rows = wait_for_effects(&w.store, |rows| rows.len() == 1000).await;
        task.abort();
        let mut last: HashMap<String, i64> = HashMap::new();
        for (_, object, sequence) in rows {
            let previous = last.insert(object.clone(), sequence).unwrap_or(-1);
            assert!(sequence > previous, "object {object}: {sequence} after {previous}");
        }
    }
}
