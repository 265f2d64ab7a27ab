//! What every service binary (`coffer-<service>`) does around its own code: the `serve` and
//! `migrate` commands, the settings all services share, the database, the Kafka bus and the
//! HTTP server. A service's `main.rs` only says how to build its modules.

mod config;
mod migrations;
mod module;

use std::future::Future;
use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use coffer_auth::{KeySource, RemoteJwks, SharedKeys, Verifier};
use coffer_events::catalogue::topic;
use coffer_events::kafka_bus::KafkaBus;
use coffer_http::config::Validate;
use coffer_http::{AppContext, Metrics, Module};
use coffer_model::clock::{Clock, SystemClock};
use coffer_store::{Migrations, Store};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use coffer_http::config::{ConfigError, Validate as ValidateConfig};
pub use config::{CommonConfig, EventSettings, ServeSettings};

/// What [`module!`]'s expansion names, so a service need not depend on it by name.
#[doc(hidden)]
pub mod __private {
    pub use coffer_events;
    pub use coffer_http;
}

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Clone, Copy, PartialEq, Eq)]
enum Command {
    /// Apply migrations (or, with `serve.migrate = false`, wait for them), then serve.
    Serve,
    /// Apply migrations and exit.
    Migrate,
}

/// A service's own settings, read beside [`CommonConfig`] from the same sources.
pub trait ServiceConfig:
    Serialize + DeserializeOwned + Default + Validate + Send + 'static
{
}

impl<T: Serialize + DeserializeOwned + Default + Validate + Send + 'static> ServiceConfig for T {}

/// A service with no settings of its own.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct NoSettings {}

impl Validate for NoSettings {
    fn validate(&self) -> Result<(), coffer_http::config::ConfigError> {
        Ok(())
    }
}

/// What `serve` hands the service: its settings, migrated store, bus and clock.
pub struct Started<C> {
    pub common: CommonConfig,
    pub config: C,
    pub store: Store,
    pub bus: Arc<KafkaBus>,
    pub clock: Arc<dyn Clock>,
}

impl<C: ServiceConfig> Started<C> {
    /// Creates the topics of the domains this service publishes to.
    pub async fn ensure_topics(&self, domains: &[&str]) -> anyhow::Result<()> {
        let prefix = &self.common.events.prefix;
        let topics: Vec<String> = domains.iter().map(|d| topic(prefix, d)).collect();
        self.bus
            .ensure_topics(&topics)
            .await
            .context("kafka.brokers: cannot create topics")
    }

    /// A verifier on identity's published keys (`auth.jwks_url`), or on `own` keys for the
    /// service that signs them.
    pub fn verifier(&self, own: Option<SharedKeys>) -> anyhow::Result<Verifier> {
        let auth = &self.common.auth;
        let keys = match (own, &auth.jwks_url) {
            (Some(keys), _) => KeySource::Shared(keys),
            (None, Some(url)) => KeySource::Remote(Arc::new(RemoteJwks::new(url.clone()))),
            (None, None) => {
                anyhow::bail!("auth.jwks_url is required: the address of identity's JWKS")
            }
        };
        Ok(Verifier::new(
            keys,
            auth.issuer.clone(),
            Arc::clone(&self.clock),
        ))
    }
}

/// The service's part: its modules and the verifier its routes check tokens with.
pub struct Built {
    pub modules: Vec<Arc<dyn Module>>,
    pub verifier: Verifier,
}

/// Runs a service binary: parses the command line and settings, then migrates and (for
/// `serve`) serves what `build` makes. Exit codes: 2 for a bad setting, 1 for a failure.
pub fn main<C, F, Fut>(name: &'static str, migrations: Migrations, build: F) -> ExitCode
where
    C: ServiceConfig,
    F: FnOnce(Started<C>) -> Fut,
    Fut: Future<Output = anyhow::Result<Built>>,
{
    let cli = Cli::parse();
    let loaded = coffer_http::config::sources().and_then(|sources| {
        let common: CommonConfig = coffer_http::config::extract(&sources)?;
        let config = coffer_http::config::extract::<C>(&sources)?;
        if cli.command == Command::Serve {
            common.require_broker()?;
            config.validate_to_serve()?;
        }
        Ok((common, config))
    });
    let (common, config) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("{name}: {e}");
            return ExitCode::from(2);
        }
    };
    coffer_http::telemetry::init(&common.log);
    let result = coffer_http::threads::runtime(common.http.worker_count())
        .context("cannot start the async runtime")
        .and_then(|rt| rt.block_on(run(name, migrations, cli.command, common, config, build)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The whole cause chain: the last link usually says what to fix.
            tracing::error!(error = format!("{e:#}"), "{name} stopped");
            eprintln!("{name}: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run<C, F, Fut>(
    name: &'static str,
    migrations: Migrations,
    command: Command,
    common: CommonConfig,
    config: C,
    build: F,
) -> anyhow::Result<()>
where
    C: ServiceConfig,
    F: FnOnce(Started<C>) -> Fut,
    Fut: Future<Output = anyhow::Result<Built>>,
{
    let store = Store::connect(&common.database_url, &common.database.pool_options())
        .context("database_url")?;
    if command == Command::Serve && !common.serve.migrate {
        let wait = std::time::Duration::from_secs(common.serve.migrations_wait_seconds);
        migrations::wait_for(&store, migrations, wait).await?;
    } else {
        let migrating = store.clone();
        let applied = tokio::task::spawn_blocking(move || migrating.migrate(&migrations))
            .await
            .context("migration task")?
            .with_context(|| format!("cannot migrate the {} database", migrations.service))?;
        tracing::info!(applied, "{name} database migrated");
    }
    if command == Command::Migrate {
        return Ok(());
    }
    let bus =
        Arc::new(KafkaBus::new(common.kafka.clone(), &common.events.prefix).context("kafka")?);
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let built = build(Started {
        common: common.clone(),
        config,
        store,
        bus,
        clock,
    })
    .await?;
    let workers: Vec<_> = built
        .modules
        .iter()
        .flat_map(|m| m.spawn_workers())
        .collect();
    let listener = TcpListener::bind(&common.http.listen)
        .with_context(|| format!("http.listen {}", common.http.listen))?;
    tracing::info!(listen = %common.http.listen, "{name} serving");
    let ctx = AppContext {
        modules: built.modules,
        verifier: built.verifier,
        metrics: Metrics::new()?,
        body_limit: common.http.body_limit,
        trusted_proxies: common.http.proxies()?,
        client_limits: common.http.client_limits(),
    };
    coffer_http::serve(listener, ctx, common.http.worker_count())?.await?;
    for worker in workers {
        worker.abort();
    }
    Ok(())
}
