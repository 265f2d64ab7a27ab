//! `coffer bench-deliveries`: signed webhook deliveries per second, and the lag from an
//! event's commit to its receipt, with events written straight into notifications' outbox
//! and delivered to a fast HTTPS receiver on loopback (receiver.rs); in-process on SQLite,
//! and (with --kafka) on Kafka with PostgreSQL. `--receiver-only` serves the receiver alone,
//! for a plain load tool to measure its own capacity (scripts/bench-deliveries.sh).

mod receiver;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use coffer_events::catalogue::PAYMENT_SUCCEEDED;
use coffer_events::kafka_bus::{KafkaBus, KafkaSettings};
use coffer_events::local_bus::{self, LocalBus};
use coffer_events::{Bus, Outbox, OutboxEvent, append};
use coffer_http::Module;
use coffer_model::clock::{Clock, SystemClock};
use coffer_notifications::deliveries::domain::address_policy::AddressPolicy;
use coffer_notifications::endpoints::domain::Endpoint;
use coffer_notifications::subscriptions::domain::Subscription;
use coffer_notifications::{Notifications, NotificationsSettings};
use coffer_secrets::Secrets;
use coffer_store::Store;
use receiver::Stats;
use serde::Serialize;
use tokio::net::TcpListener;
use uuid::Uuid;

use crate::bench_events::{KafkaRun, ScratchDatabase, percentile};
use crate::services;

#[derive(Debug, clap::Args)]
pub struct BenchDeliveriesArgs {
    /// The receiver's certificate (PEM); deliveries trust it.
    #[arg(long)]
    pub cert: PathBuf,
    /// The receiver's private key (PEM).
    #[arg(long)]
    pub key: PathBuf,
    /// Where the receiver listens, on 127.0.0.1.
    #[arg(long, default_value_t = 18450)]
    pub port: u16,
    /// Serve the receiver only, until stopped.
    #[arg(long)]
    pub receiver_only: bool,
    /// Events sent at once for the throughput runs (each delivered to every endpoint).
    #[arg(long, default_value_t = 20_000)]
    pub events: usize,
    /// Events per second for the lag runs.
    #[arg(long, default_value_t = 1_000)]
    pub rate: usize,
    /// How long the lag runs send, in seconds.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Print, every second of a scenario, where its events are: still in the outbox,
    /// delivery tasks waiting, and deliveries received.
    #[arg(long)]
    pub progress: bool,
    #[command(flatten)]
    pub on: KafkaRun,
}

#[derive(Debug, Serialize)]
struct Run {
    bus: &'static str,
    database: &'static str,
    scenario: &'static str,
    endpoints: usize,
    silent_endpoint: bool,
    events: usize,
    deliveries: usize,
    seconds: f64,
    deliveries_per_second: f64,
    lag_p50_ms: i64,
    lag_p99_ms: i64,
}

/// How a scenario sends its events.
#[derive(Debug, Clone, Copy)]
enum Sending {
    /// All at once, in transactions of 500.
    Burst(usize),
    /// So many a second, for so many seconds, a tenth of a second's worth at a time.
    Rate(usize, u64),
}

struct Bench {
    store: Store,
    secrets: Secrets,
    outbox: Outbox,
    stats: Arc<Stats>,
    port: u16,
    silent_port: u16,
    progress: bool,
}

impl Bench {
    /// A new organisation with `live` endpoints at the receiver (and one silent one), each
    /// subscribed to `payment.succeeded`.
    async fn organisation(&self, live: usize, silent: bool) -> anyhow::Result<Uuid> {
        let org = Uuid::new_v4();
        let mut urls: Vec<String> = (0..live)
            .map(|i| format!("https://localhost:{}/live/{i}", self.port))
            .collect();
        if silent {
            urls.push(format!("https://localhost:{}/silent", self.silent_port));
        }
        let secrets = self.secrets.clone();
        self.store
            .query(move |db| {
                db.write_tx(|tx| {
                    for url in urls {
                        let endpoint = Endpoint {
                            uuid: Uuid::new_v4().to_string(),
                            organisation_uuid: org.to_string(),
                            account_uuid: None,
                            alias: None,
                            endpoint: url,
                            username: None,
                            password: None,
                            hmac_key: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into(),
                            previous_hmac_key: None,
                            enabled: true,
                            disabled_reason: None,
                            created: 0,
                        };
                        coffer_notifications::endpoints::store::insert(tx, &secrets, &endpoint)?;
                        let subscription = Subscription {
                            uuid: Uuid::new_v4().to_string(),
                            organisation_uuid: org.to_string(),
                            account_uuid: None,
                            action_configuration_uuid: endpoint.uuid.clone(),
                            event_name: PAYMENT_SUCCEEDED.name("coffer"),
                            event_key: "payment_gateway.payment.succeeded".into(),
                            filter: None,
                            enabled: true,
                            created: 0,
                        };
                        coffer_notifications::subscriptions::store::insert(tx, &subscription)?;
                    }
                    Ok(())
                })
            })
            .await?;
        Ok(org)
    }

    async fn send(&self, org: Uuid, n: usize) -> anyhow::Result<()> {
        let events: Vec<OutboxEvent> = (0..n)
            .map(|i| {
                self.outbox.event(
                    &PAYMENT_SUCCEEDED,
                    Uuid::new_v4(),
                    Some(org),
                    None,
                    serde_json::json!({"payment_method": "card", "amount": {"value": (1000 + i).to_string(), "currency": "CHF"}}),
                )
            })
            .collect();
        self.store
            .query(move |db| db.write_tx(|tx| append(tx, &events, None)))
            .await?;
        self.outbox.committed();
        Ok(())
    }

    async fn wait_for(&self, expected: usize, within: Duration) -> anyhow::Result<()> {
        let started = Instant::now();
        let deadline = started + within;
        let mut next_sample = started + Duration::from_secs(1);
        while self.stats.count() < expected {
            if self.progress && Instant::now() >= next_sample {
                next_sample += Duration::from_secs(1);
                self.sample(started).await?;
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "only {} of {expected} deliveries arrived",
                self.stats.count()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Ok(())
    }

    /// One line of `--progress`: seconds since the wait began, events not yet published,
    /// tasks waiting, deliveries received.
    async fn sample(&self, started: Instant) -> anyhow::Result<()> {
        let now_ms = SystemClock.unix_ms();
        let (outbox, tasks) = self
            .store
            .query(move |db| {
                let outbox = coffer_events::outbox::pending_count(db)?;
                let (tasks, _) =
                    coffer_notifications::deliveries::store::tasks::waiting(db, now_ms)?;
                Ok((outbox, tasks))
            })
            .await?;
        eprintln!(
            "{:>6.1} s  outbox {outbox:>6}  tasks {tasks:>6}  received {:>6}",
            started.elapsed().as_secs_f64(),
            self.stats.count()
        );
        Ok(())
    }

    async fn scenario(
        &self,
        names: (&'static str, &'static str),
        scenario: &'static str,
        live: usize,
        silent: bool,
        sending: Sending,
    ) -> anyhow::Result<Run> {
        let org = self.organisation(live, silent).await?;
        // One event first, so every endpoint's connection is open before timing starts.
        self.stats.reset();
        self.send(org, 1).await?;
        self.wait_for(live, Duration::from_secs(60)).await?;
        self.stats.reset();
        let started = Instant::now();
        let events = match sending {
            Sending::Burst(n) => {
                let mut sent = 0;
                while sent < n {
                    let batch = 500.min(n - sent);
                    self.send(org, batch).await?;
                    sent += batch;
                }
                n
            }
            Sending::Rate(per_second, seconds) => {
                let mut tick = tokio::time::interval(Duration::from_millis(100));
                let ticks = seconds * 10;
                for _ in 0..ticks {
                    tick.tick().await;
                    self.send(org, per_second / 10).await?;
                }
                per_second / 10 * usize::try_from(ticks).unwrap_or(0)
            }
        };
        let deliveries = events * live;
        self.wait_for(deliveries, Duration::from_secs(900)).await?;
        let seconds = started.elapsed().as_secs_f64();
        let lags = self.stats.lags();
        Ok(Run {
            bus: names.0,
            database: names.1,
            scenario,
            endpoints: live,
            silent_endpoint: silent,
            events,
            deliveries,
            seconds,
            deliveries_per_second: deliveries as f64 / seconds,
            lag_p50_ms: percentile(&lags, 0.50),
            lag_p99_ms: percentile(&lags, 0.99),
        })
    }
}

async fn run_on(
    names: (&'static str, &'static str),
    store: Store,
    bus: Arc<dyn Bus>,
    args: &BenchDeliveriesArgs,
    stats: &Arc<Stats>,
    silent_port: u16,
) -> anyhow::Result<Vec<Run>> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let secrets = Secrets::ephemeral()?;
    let prefix = format!("bench{}", &Uuid::new_v4().simple().to_string()[..8]);
    let settings = NotificationsSettings {
        event_prefix: prefix,
        addresses: AddressPolicy::parse("127.0.0.0/8,::1/128").map_err(anyhow::Error::msg)?,
        extra_roots: Some(std::fs::read(&args.cert).context("--cert")?),
        ..NotificationsSettings::default()
    };
    let notifications =
        Notifications::start(store.clone(), clock, bus, secrets.clone(), settings).await?;
    let workers = notifications.spawn_workers();
    let bench = Bench {
        store,
        secrets,
        outbox: notifications.outbox().clone(),
        stats: Arc::clone(stats),
        port: args.port,
        silent_port,
        progress: args.progress,
    };
    let burst = Sending::Burst(args.events);
    let rate = Sending::Rate(args.rate, args.seconds);
    let mut runs = Vec::new();
    runs.push(bench.scenario(names, "throughput", 1, false, burst).await?);
    runs.push(
        bench
            .scenario(
                names,
                "throughput",
                10,
                false,
                Sending::Burst(args.events / 10),
            )
            .await?,
    );
    runs.push(bench.scenario(names, "lag", 1, false, rate).await?);
    // The silent endpoint's tries wait out their timeout, and are tried again, while the
    // live endpoint's are measured.
    runs.push(bench.scenario(names, "throughput", 1, true, burst).await?);
    runs.push(bench.scenario(names, "lag", 1, true, rate).await?);
    for worker in workers {
        worker.abort();
    }
    Ok(runs)
}

pub async fn run(args: BenchDeliveriesArgs) -> anyhow::Result<()> {
    let stats = Arc::new(Stats::default());
    let listener = TcpListener::bind(("127.0.0.1", args.port))
        .await
        .with_context(|| format!("the receiver cannot listen on 127.0.0.1:{}", args.port))?;
    if args.receiver_only {
        eprintln!("receiver: https://localhost:{}/", args.port);
        return receiver::serve(listener, &args.cert, &args.key, stats).await;
    }
    let serving = {
        let (cert, key, stats) = (args.cert.clone(), args.key.clone(), Arc::clone(&stats));
        tokio::spawn(async move { receiver::serve(listener, &cert, &key, stats).await })
    };
    let silent = TcpListener::bind(("127.0.0.1", 0)).await?;
    let silent_port = silent.local_addr()?.port();
    let silencing = tokio::spawn(receiver::silent(silent));

    let dir = tempfile::tempdir()?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = services::open(dir.path(), coffer_notifications::MIGRATIONS).await?;
    let bus: Arc<dyn Bus> = Arc::new(LocalBus::new(
        services::open(dir.path(), local_bus::MIGRATIONS).await?,
        clock,
    ));
    let mut runs = run_on(
        ("in-process", "sqlite"),
        store,
        bus,
        &args,
        &stats,
        silent_port,
    )
    .await?;

    if let Some(brokers) = &args.on.kafka {
        let scratch = ScratchDatabase::create(&args.on.postgres, "coffer_bench_deliveries")?;
        let store = services::open_url(&scratch.url, coffer_notifications::MIGRATIONS).await?;
        let settings = KafkaSettings {
            brokers: brokers.clone(),
            partitions: 6,
            ..KafkaSettings::default()
        };
        let bus: Arc<dyn Bus> = Arc::new(KafkaBus::new(settings, "bench")?);
        runs.extend(
            run_on(
                ("kafka", "postgresql"),
                store,
                bus,
                &args,
                &stats,
                silent_port,
            )
            .await?,
        );
    }
    serving.abort();
    silencing.abort();
    println!("{}", serde_json::to_string_pretty(&runs)?);
    Ok(())
}
