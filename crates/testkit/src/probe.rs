//! The probe service for event tests: a store with an outbox, an inbox and `effects`, and a
//! consumer that writes one effects row per applied event.

use std::sync::Arc;
use std::time::Duration;

use crate::{Backend, TestDb};
use coffer_events::catalogue::EventType;
use coffer_events::outbox::OutboxEvent;
use coffer_events::{
    Bus, Consumer, ConsumerSettings, Event, Handler, HandlerError, Outbox, Relay, RelaySettings,
};
use coffer_model::clock::{Clock, ManualClock};
use coffer_store::{Db, Migrations, PoolOptions, Store, db_run};
use diesel::prelude::*;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use uuid::Uuid;

const POSTGRES: EmbeddedMigrations = embed_migrations!("migrations-probe/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("migrations-probe/sqlite");
pub const PROBE: Migrations = Migrations {
    includes: &[coffer_events::MIGRATIONS],
    service: "probe",
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};

pub const PROBED: EventType = EventType {
    domain: "probe",
    object: "thing",
    action: "probed",
    description: "A test event.",
};

diesel::table! {
    effects (id) {
        id -> BigInt,
        event_id -> Text,
        object_uuid -> Text,
        sequence -> BigInt,
        applied_ms -> BigInt,
    }
}

pub fn clock() -> Arc<dyn Clock> {
    Arc::new(ManualClock::at_unix(1_767_225_600))
}

pub async fn store(db: &TestDb, migrations: Migrations) -> Store {
    let store = Store::connect(
        &db.url,
        &PoolOptions {
            max_connections: 4,
            ..PoolOptions::default()
        },
    )
    .unwrap();
    let m = store.clone();
    tokio::task::spawn_blocking(move || m.migrate(&migrations))
        .await
        .unwrap()
        .unwrap();
    store
}

/// Writes one effects row per event; fails (transiently) on events whose data says `poison`,
/// and does not want those whose data says `unwanted`.
pub struct ProbeHandler;

impl Handler for ProbeHandler {
    fn wants(&self, event: &Event) -> bool {
        event.data["unwanted"] != true
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        if event.data["poison"] == true {
            return Err(HandlerError::Transient("probe refuses poison".into()));
        }
        let row = (
            effects::event_id.eq(event.id.to_string()),
            effects::object_uuid.eq(event.object_uuid.to_string()),
            effects::sequence.eq(event.data["sequence"].as_i64().unwrap_or(-1)),
            effects::applied_ms.eq(event.timestamp),
        );
        db_run!(db: { diesel::insert_into(effects::table).values(&row).execute(db) })?;
        Ok(())
    }
}

pub fn outbox() -> Outbox {
    Outbox::new("coffer", clock())
}

pub fn event(outbox: &Outbox, object: Uuid, sequence: i64) -> OutboxEvent {
    outbox.event(
        &PROBED,
        object,
        None,
        None,
        serde_json::json!({ "sequence": sequence }),
    )
}

pub fn consumer(store: &Store, bus: Arc<dyn Bus>, name: &str) -> Arc<Consumer> {
    Arc::new(Consumer::new(
        store.clone(),
        bus,
        clock(),
        Arc::new(ProbeHandler),
        ConsumerSettings {
            name: name.to_owned(),
            topics: vec![PROBED.topic("coffer")],
            max_attempts: 3,
            retry_backoff: Duration::from_millis(10),
            lanes: 4,
        },
    ))
}

pub fn relay(store: &Store, bus: Arc<dyn Bus>, outbox: &Outbox) -> Arc<Relay> {
    Arc::new(Relay::new(
        store.clone(),
        bus,
        outbox.signal(),
        RelaySettings {
            poll_interval: Duration::from_millis(50),
            ..RelaySettings::default()
        },
    ))
}

/// (event_id, object_uuid, sequence) in the order they were applied.
pub async fn effects(store: &Store) -> Vec<(String, String, i64)> {
    store
        .query(|db| {
            db_run!(db: {
                effects::table
                    .order(effects::id.asc())
                    .select((effects::event_id, effects::object_uuid, effects::sequence))
                    .load(db)
            })
        })
        .await
        .unwrap()
}

/// Waits (bounded) until `done` holds for the applied effects.
pub async fn wait_for_effects(
    store: &Store,
    done: impl Fn(&[(String, String, i64)]) -> bool,
) -> Vec<(String, String, i64)> {
    for _ in 0..600 {
        let rows = effects(store).await;
        if done(&rows) {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let rows = effects(store).await;
    panic!(
        "effects never reached the expected state; {} rows",
        rows.len()
    );
}

pub fn backend_db(backend: Backend) -> TestDb {
    TestDb::create(backend)
}
