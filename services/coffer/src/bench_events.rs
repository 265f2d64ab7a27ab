//! `coffer bench-events`: events per second from outbox to consumer, and the lag from the
//! commit to the consumer's transaction, on the in-process bus and on Kafka.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use coffer_events::kafka_bus::{KafkaBus, KafkaSettings};
use coffer_events::local_bus::{self, LocalBus};
use coffer_events::outbox::OutboxEvent;
use coffer_events::{
    Bus, Consumer, ConsumerSettings, Event, Handler, HandlerError, Outbox, Relay, RelaySettings,
    append,
};
use coffer_model::clock::{Clock, SystemClock};
use coffer_store::{Db, Store};
use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use serde::Serialize;

use crate::services;

#[derive(Debug, clap::Args)]
pub struct BenchEventsArgs {
    /// Events to send through.
    #[arg(long, default_value_t = 20_000)]
    pub events: usize,
    /// Events appended per transaction.
    #[arg(long, default_value_t = 100)]
    pub per_commit: usize,
    #[command(flatten)]
    pub on: KafkaRun,
}

/// Where a benchmark's second run goes: Kafka with PostgreSQL (bench-events and
/// bench-deliveries share these flags).
#[derive(Debug, clap::Args)]
pub struct KafkaRun {
    /// Also run on Kafka (these bootstrap servers) with PostgreSQL.
    #[arg(long)]
    pub kafka: Option<String>,
    /// PostgreSQL for the Kafka run; a scratch database is made beside this one's.
    #[arg(
        long,
        default_value = "postgres://coffer_test@127.0.0.1:5432/coffer_test"
    )]
    pub postgres: String,
}

#[derive(Debug, Serialize)]
struct Run {
    bus: &'static str,
    database: &'static str,
    events: usize,
    events_per_second: f64,
    lag_p50_ms: i64,
    lag_p99_ms: i64,
}

/// Notes when each event reached the consumer's transaction.
struct Recorder {
    clock: Arc<dyn Clock>,
    lags: Mutex<Vec<i64>>,
}

impl Handler for Recorder {
    fn handle(&self, _db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let lag = self.clock.unix_ms() - event.timestamp;
        if let Ok(mut lags) = self.lags.lock() {
            lags.push(lag);
        }
        Ok(())
    }
}

impl Recorder {
    fn count(&self) -> usize {
        self.lags.lock().map(|l| l.len()).unwrap_or(0)
    }
}

pub(crate) fn percentile(sorted: &[i64], p: f64) -> i64 {
    sorted
        .get(((sorted.len().saturating_sub(1)) as f64 * p).round() as usize)
        .copied()
        .unwrap_or(0)
}

async fn run(
    bus_name: &'static str,
    database: &'static str,
    store: Store,
    bus: Arc<dyn Bus>,
    args: &BenchEventsArgs,
) -> anyhow::Result<Run> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let prefix = format!("bench{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let outbox = Outbox::new(prefix.clone(), Arc::clone(&clock));
    let recorder = Arc::new(Recorder {
        clock: Arc::clone(&clock),
        lags: Mutex::new(Vec::new()),
    });
    let kind = coffer_events::catalogue::ORGANISATION_UPDATED;
    let consumer = Arc::new(Consumer::new(
        store.clone(),
        Arc::clone(&bus),
        Arc::clone(&clock),
        recorder.clone(),
        ConsumerSettings {
            name: format!("{prefix}-bench"),
            topics: vec![kind.topic(&prefix)],
            max_attempts: 3,
            retry_backoff: Duration::from_millis(10),
            lanes: 4,
        },
    ));
    let relay = Arc::new(Relay::new(
        store.clone(),
        Arc::clone(&bus),
        outbox.signal(),
        RelaySettings::default(),
    ));
    let consuming = tokio::spawn(Arc::clone(&consumer).run_forever());
    let relaying = relay.spawn();

    let make = |n: usize| -> Vec<OutboxEvent> {
        (0..n)
            .map(|_| {
                outbox.event(
                    &kind,
                    uuid::Uuid::new_v4(),
                    None,
                    None,
                    serde_json::json!({}),
                )
            })
            .collect()
    };
    // One event first, so the group has joined and the path is warm before timing starts.
    let warm = make(1);
    store
        .query(move |db| db.write_tx(|tx| append(tx, &warm, None)))
        .await?;
    outbox.committed();
    let deadline = Instant::now() + Duration::from_secs(60);
    while recorder.count() < 1 {
        anyhow::ensure!(Instant::now() < deadline, "the warm-up event never arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if let Ok(mut lags) = recorder.lags.lock() {
        lags.clear();
    }

    let started = Instant::now();
    let mut sent = 0;
    while sent < args.events {
        let batch = make(args.per_commit.min(args.events - sent));
        sent += batch.len();
        store
            .query(move |db| db.write_tx(|tx| append(tx, &batch, None)))
            .await?;
        outbox.committed();
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    while recorder.count() < args.events {
        anyhow::ensure!(
            Instant::now() < deadline,
            "only {} of {} events arrived",
            recorder.count(),
            args.events
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    consuming.abort();
    relaying.iter().for_each(tokio::task::JoinHandle::abort);
    let mut lags = recorder.lags.lock().map(|l| l.clone()).unwrap_or_default();
    lags.sort_unstable();
    Ok(Run {
        bus: bus_name,
        database,
        events: args.events,
        events_per_second: args.events as f64 / elapsed,
        lag_p50_ms: percentile(&lags, 0.50),
        lag_p99_ms: percentile(&lags, 0.99),
    })
}

/// A database of its own for one benchmark run, made beside `postgres`'s and dropped
/// (with its connections) when this is.
pub(crate) struct ScratchDatabase {
    admin: PgConnection,
    name: String,
    pub url: String,
}

impl ScratchDatabase {
    pub(crate) fn create(postgres: &str, prefix: &str) -> anyhow::Result<Self> {
        let name = format!(
            "{prefix}_{}",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        let mut admin = PgConnection::establish(postgres).context("--postgres")?;
        admin.batch_execute(&format!("CREATE DATABASE {name}"))?;
        let base = postgres.rsplit_once('/').map_or(postgres, |(base, _)| base);
        Ok(Self {
            admin,
            url: format!("{base}/{name}"),
            name,
        })
    }
}

impl Drop for ScratchDatabase {
    fn drop(&mut self) {
        let drop = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(e) = self.admin.batch_execute(&drop) {
            eprintln!("could not drop the scratch database {}: {e}", self.name);
        }
    }
}

pub async fn run_all(args: BenchEventsArgs) -> anyhow::Result<()> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let dir = tempfile::tempdir()?;
    let store = services::open(dir.path(), coffer_identity::MIGRATIONS).await?;
    let bus: Arc<dyn Bus> = Arc::new(LocalBus::new(
        services::open(dir.path(), local_bus::MIGRATIONS).await?,
        clock,
    ));
    let mut runs = vec![run("in-process", "sqlite", store, bus, &args).await?];

    if let Some(brokers) = &args.on.kafka {
        let scratch = ScratchDatabase::create(&args.on.postgres, "coffer_bench_events")?;
        let store = services::open_url(&scratch.url, coffer_identity::MIGRATIONS).await?;
        let settings = KafkaSettings {
            brokers: brokers.clone(),
            partitions: 6,
            ..KafkaSettings::default()
        };
        let bus: Arc<dyn Bus> = Arc::new(KafkaBus::new(settings, "bench")?);
        runs.push(run("kafka", "postgresql", store, bus, &args).await?);
    }
    println!("{}", serde_json::to_string_pretty(&runs)?);
    Ok(())
}
