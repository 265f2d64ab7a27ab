//! `coffer-identity`: the identity service on its own (distributed mode).
//!
//! `coffer-identity serve` migrates, then serves; `coffer-identity migrate` only migrates.
//! Settings come from `COFFER_*` environment variables or the TOML file in `COFFER_CONFIG`
//! (see docs/configuration.md).

use std::net::TcpListener;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use coffer_auth::{KeySource, SharedKeys, Verifier};
use coffer_events::RelaySettings;
use coffer_events::catalogue::CATALOGUE;
use coffer_events::kafka_bus::KafkaBus;
use coffer_http::{AppContext, Metrics, Module};
use coffer_identity::config::IdentityConfig;
use coffer_identity::{Identity, IdentitySettings, MIGRATIONS};
use coffer_model::clock::{Clock, SystemClock};
use coffer_store::{PoolOptions, Store};

#[derive(Parser)]
#[command(name = "coffer-identity", version, about = "Coffer identity service")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply migrations, then serve.
    Serve,
    /// Apply migrations and exit.
    Migrate,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let loaded = coffer_http::config::load::<IdentityConfig>().and_then(|config| {
        if matches!(cli.command, Command::Serve) {
            config.require_broker()?;
        }
        Ok(config)
    });
    let config = match loaded {
        Ok(config) => config,
        Err(e) => {
            eprintln!("coffer-identity: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    coffer_http::telemetry::init(&config.log);
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .and_then(|rt| rt.block_on(run(cli.command, config)));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = format!("{e:#}"), "coffer-identity stopped");
            eprintln!("coffer-identity: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn migrate(config: &IdentityConfig) -> anyhow::Result<Store> {
    let store =
        Store::connect(&config.database_url, &PoolOptions::default()).context("database_url")?;
    let migrating = store.clone();
    let applied = tokio::task::spawn_blocking(move || migrating.migrate(&MIGRATIONS))
        .await
        .context("migration task")?
        .context("cannot migrate the identity database")?;
    tracing::info!(applied, "identity database migrated");
    Ok(store)
}

async fn run(command: Command, config: IdentityConfig) -> anyhow::Result<()> {
    let store = migrate(&config).await?;
    if matches!(command, Command::Migrate) {
        return Ok(());
    }
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let keys = SharedKeys::default();
    let bus = KafkaBus::new(config.kafka.clone(), &config.events.prefix).context("kafka")?;
    let topics: Vec<String> = CATALOGUE
        .iter()
        .filter(|kind| kind.domain == "identity")
        .map(|kind| kind.topic(&config.events.prefix))
        .collect();
    bus.ensure_topics(&topics)
        .await
        .context("kafka.brokers: cannot create identity's topics")?;
    let settings = IdentitySettings {
        issuer: config.auth.issuer.clone(),
        event_prefix: config.events.prefix.clone(),
        relay: RelaySettings {
            retention: std::time::Duration::from_secs(config.events.retention_hours * 3600),
            batch_size: config.events.batch_size,
            ..RelaySettings::default()
        },
        token_lifetime_secs: config.token.lifetime_secs,
        key_reload: std::time::Duration::from_secs(config.token.key_reload_secs),
        read_cache_ttl: std::time::Duration::from_millis(config.cache.read_ttl_ms),
    };
    let identity = Identity::start(
        store,
        Arc::clone(&clock),
        keys.clone(),
        Arc::new(bus),
        settings,
    )
    .await?;
    let workers = identity.spawn_workers();
    let listener = TcpListener::bind(&config.http.listen)
        .with_context(|| format!("http.listen {}", config.http.listen))?;
    tracing::info!(listen = %config.http.listen, "coffer-identity serving");
    let ctx = AppContext {
        modules: vec![Arc::new(identity)],
        // Identity verifies with its own keys; it never fetches its own JWKS.
        verifier: Verifier::new(KeySource::Shared(keys), config.auth.issuer.clone(), clock),
        metrics: Metrics::new()?,
        body_limit: config.http.body_limit,
    };
    coffer_http::serve(listener, ctx, config.http.worker_count())?.await?;
    for worker in workers {
        worker.abort();
    }
    Ok(())
}
