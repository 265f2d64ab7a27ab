//! Events across processes through a real Kafka-protocol broker and PostgreSQL: the
//! `coffer-identity` binary relays its outbox; this test process consumes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{HashMap, HashSet};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use coffer_events::kafka_bus::{KafkaBus, KafkaSettings};
use coffer_events::outbox::{self, OutboxEvent};
use coffer_events::{Bus, Message, Outbox, append};
use coffer_identity::MIGRATIONS;
use coffer_identity::admin::Admin;
use coffer_identity::domain::directory::OrganisationInput;
use coffer_store::{Store, StoreError};
use coffer_testkit::probe::{self, PROBE, PROBED};
use coffer_testkit::{Backend, TestDb};
use uuid::Uuid;

const BIN: &str = env!("CARGO_BIN_EXE_coffer-identity");

/// A `coffer-identity serve` process, killed when dropped.
struct Relay(Child);

impl Relay {
    fn start(db: &TestDb, brokers: &str, prefix: &str, batch: i64) -> Relay {
        Self::start_on(db, brokers, prefix, batch, "127.0.0.1:0")
    }

    fn start_on(db: &TestDb, brokers: &str, prefix: &str, batch: i64, listen: &str) -> Relay {
        let child = Command::new(BIN)
            .arg("serve")
            .env("COFFER_DATABASE_URL", &db.url)
            .env("COFFER_KAFKA__BROKERS", brokers)
            .env("COFFER_EVENTS__PREFIX", prefix)
            .env("COFFER_EVENTS__BATCH_SIZE", batch.to_string())
            .env("COFFER_HTTP__LISTEN", listen)
            .env("COFFER_SSO__ISSUER", "http://127.0.0.1")
            .env("COFFER_LOG__LEVEL", "warn")
            // A fixed master key: a restarted relay opens what the first one sealed.
            .env(
                "COFFER_SECRETS__KEYS",
                "t1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("coffer-identity starts");
        Relay(child)
    }

    /// SIGKILL: no shutdown code runs, as in a crash or an OOM kill.
    fn kill_hard(&mut self) {
        self.0.kill().unwrap();
        self.0.wait().unwrap();
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Setup {
    brokers: String,
    prefix: String,
    identity_db: TestDb,
    identity: Store,
    probe_db: TestDb,
    probe: Store,
    bus: Arc<KafkaBus>,
}

fn settings(brokers: &str) -> KafkaSettings {
    KafkaSettings {
        brokers: brokers.to_owned(),
        partitions: 3,
        session_timeout_ms: 6000,
        heartbeat_interval_ms: 500,
        ..KafkaSettings::default()
    }
}

/// `None` when the broker or PostgreSQL is not configured (a local `cargo test`).
async fn setup() -> Option<Setup> {
    let brokers = coffer_testkit::kafka_brokers()?;
    if !Backend::postgres_enabled() {
        return None;
    }
    // Topics of every test are its own: the broker is shared.
    let prefix = format!("t{}", &Uuid::new_v4().simple().to_string()[..12]);
    let identity_db = TestDb::create(Backend::Postgres);
    let identity = probe::store(&identity_db, MIGRATIONS).await;
    let probe_db = TestDb::create(Backend::Postgres);
    let probe = probe::store(&probe_db, PROBE).await;
    let bus = Arc::new(KafkaBus::new(settings(&brokers), &prefix).unwrap());
    bus.ensure_topics(&[PROBED.topic(&prefix), format!("{prefix}.events.identity")])
        .await
        .unwrap();
    Some(Setup {
        brokers,
        prefix,
        identity_db,
        identity,
        probe_db,
        probe,
        bus,
    })
}

impl Setup {
    fn outbox(&self) -> Outbox {
        Outbox::new(self.prefix.clone(), probe::clock())
    }

    fn consume(&self, topic: String) -> tokio::task::JoinHandle<()> {
        let bus: Arc<dyn Bus> = self.bus.clone();
        let consumer = Arc::new(coffer_events::Consumer::new(
            self.probe.clone(),
            bus,
            probe::clock(),
            Arc::new(probe::ProbeHandler),
            coffer_events::ConsumerSettings {
                name: format!("{}-probe", self.prefix),
                topics: vec![topic],
                max_attempts: 2,
                retry_backoff: Duration::from_millis(10),
                lanes: 4,
            },
        ));
        tokio::spawn(async move { consumer.run_forever().await })
    }

    async fn commit(&self, events: Vec<OutboxEvent>) {
        self.identity
            .query(move |db| db.write_tx(|tx| append(tx, &events, None)))
            .await
            .unwrap();
    }

    async fn pending(&self) -> i64 {
        self.identity.query(outbox::pending_count).await.unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_committed_event_reaches_another_process_and_a_rolled_back_one_never_does() {
    let Some(s) = setup().await else { return };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _relay = Relay::start_on(
        &s.identity_db,
        &s.brokers,
        &s.prefix,
        500,
        &format!("127.0.0.1:{port}"),
    );
    // Ready means the database and the broker both answer.
    let mut ready = None;
    for _ in 0..200 {
        if let Ok(res) = reqwest::get(format!("http://127.0.0.1:{port}/health/ready")).await {
            ready = Some((
                res.status().as_u16(),
                res.json::<serde_json::Value>().await.unwrap(),
            ));
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, body) = ready.expect("coffer-identity answers");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["checks"]["identity"], "ok");
    let consumer = s.consume(format!("{}.events.identity", s.prefix));
    let admin = Admin::new(s.identity.clone(), probe::clock(), s.outbox());

    let org = admin
        .create_organisation(OrganisationInput {
            name: "Across".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let ghost = s.outbox().event(
        &coffer_events::catalogue::ORGANISATION_CREATED,
        Uuid::new_v4(),
        None,
        None,
        serde_json::json!({}),
    );
    let ghost_object = ghost.event.object_uuid.to_string();
    let rolled_back: Result<(), StoreError> = s
        .identity
        .run(move |db| {
            db.write_tx(|tx| {
                append(tx, &[ghost], None)?;
                Err(diesel::result::Error::RollbackTransaction)
            })
            .map_err(StoreError::from)
        })
        .await;
    assert!(rolled_back.is_err());
    let marker = admin
        .create_organisation(OrganisationInput {
            name: "Marker".into(),
            ..Default::default()
        })
        .await
        .unwrap();

    let org_uuid = org["uuid"].as_str().unwrap().to_owned();
    let marker_uuid = marker["uuid"].as_str().unwrap().to_owned();
    let org_key = org_uuid.clone();
    // The two organisations may sit on different partitions: wait for both.
    let rows = probe::wait_for_effects(&s.probe, |rows| {
        rows.iter().any(|r| r.1 == marker_uuid) && rows.iter().any(|r| r.1 == org_uuid)
    })
    .await;
    consumer.abort();
    assert!(
        rows.iter().any(|r| r.1 == org_key),
        "the committed event arrived"
    );
    assert!(
        rows.iter().all(|r| r.1 != ghost_object),
        "the rolled-back event never did"
    );
    assert_eq!(s.pending().await, 0);
    let _ = &s.probe_db;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_killed_mid_stream_loses_nothing_and_duplicates_nothing() {
    let Some(s) = setup().await else { return };
    const TOTAL: i64 = 10_000;
    let outbox = s.outbox();
    for chunk in 0..10 {
        let events = (0..1000)
            .map(|i| probe::event(&outbox, Uuid::new_v4(), chunk * 1000 + i))
            .collect();
        s.commit(events).await;
    }
    assert_eq!(s.pending().await, TOTAL);

    // Small batches, so the kill lands between batches or inside one.
    let mut relay = Relay::start(&s.identity_db, &s.brokers, &s.prefix, 100);
    let mut pending = TOTAL;
    for _ in 0..600 {
        pending = s.pending().await;
        if pending < TOTAL * 7 / 10 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    relay.kill_hard();
    let left = s.pending().await;
    assert!(
        left > 0 && left < TOTAL,
        "killed mid-stream ({pending} then {left} pending)"
    );

    let _restarted = Relay::start(&s.identity_db, &s.brokers, &s.prefix, 100);
    let consumer = s.consume(PROBED.topic(&s.prefix));
    let rows = probe::wait_for_effects(&s.probe, |rows| rows.len() as i64 >= TOTAL).await;
    // Anything still in flight (a republished duplicate) gets its chance to be applied.
    tokio::time::sleep(Duration::from_secs(2)).await;
    consumer.abort();
    let rows = if rows.len() as i64 == TOTAL {
        probe::effects(&s.probe).await
    } else {
        rows
    };
    assert_eq!(rows.len() as i64, TOTAL, "every event applied exactly once");
    let distinct: HashSet<&String> = rows.iter().map(|r| &r.0).collect();
    assert_eq!(distinct.len() as i64, TOTAL);
    assert_eq!(s.pending().await, 0);
    let _ = &s.probe_db;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_message_twice_is_applied_once_and_poison_is_set_aside() {
    let Some(s) = setup().await else { return };
    let outbox = s.outbox();
    let object = Uuid::new_v4();
    let message = |e: &OutboxEvent| Message {
        topic: e.topic.clone(),
        key: e.event.object_uuid.to_string(),
        payload: e.event.to_json().unwrap(),
        headers: vec![],
    };
    let first = probe::event(&outbox, object, 1);
    let poison = outbox.event(
        &PROBED,
        object,
        None,
        None,
        serde_json::json!({ "poison": true }),
    );
    let last = probe::event(&outbox, object, 3);
    s.bus
        .publish(&[
            message(&first),
            message(&first),
            message(&poison),
            message(&last),
        ])
        .await
        .unwrap();

    let consumer = s.consume(PROBED.topic(&s.prefix));
    let rows = probe::wait_for_effects(&s.probe, |rows| rows.iter().any(|r| r.2 == 3)).await;
    consumer.abort();
    assert_eq!(
        rows.iter().map(|r| r.2).collect::<Vec<_>>(),
        [1, 3],
        "duplicate applied once, poison skipped"
    );

    let group = format!("{}-probe", s.prefix);
    let mut dead = s
        .bus
        .subscribe(
            &format!("{group}-reader"),
            &[s.bus.dead_letter_topic(&group)],
        )
        .await
        .unwrap();
    let d = tokio::time::timeout(Duration::from_secs(30), dead.next())
        .await
        .expect("a dead letter")
        .unwrap();
    assert_eq!(d.message.key, object.to_string());
    assert!(
        d.message
            .header("dead_letter_reason")
            .unwrap()
            .contains("poison")
    );
    assert_eq!(
        coffer_events::Event::from_json(&d.message.payload)
            .unwrap()
            .id,
        poison.event.id
    );
    let _ = (&s.identity_db, &s.probe_db);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_relay_replicas_keep_each_objects_order() {
    let Some(s) = setup().await else { return };
    let outbox = s.outbox();
    let objects: Vec<Uuid> = (0..20).map(|_| Uuid::new_v4()).collect();
    for round in 0..20 {
        s.commit(
            (0..100)
                .map(|i| probe::event(&outbox, objects[i % 20], round * 100 + i as i64))
                .collect(),
        )
        .await;
    }
    let _a = Relay::start(&s.identity_db, &s.brokers, &s.prefix, 50);
    let _b = Relay::start(&s.identity_db, &s.brokers, &s.prefix, 50);
    let consumer = s.consume(PROBED.topic(&s.prefix));
    let rows = probe::wait_for_effects(&s.probe, |rows| rows.len() == 2000).await;
    consumer.abort();
    let mut last: HashMap<&String, i64> = HashMap::new();
    for (_, object, sequence) in &rows {
        let previous = last.insert(object, *sequence).unwrap_or(-1);
        assert!(
            *sequence > previous,
            "object {object}: {sequence} after {previous}"
        );
    }
    let _ = &s.probe_db;
}
