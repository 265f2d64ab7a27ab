//! `coffer dev`: every service on one port, from SQLite files under the data directory.

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use coffer_auth::{KeySource, SharedKeys, Verifier};
use coffer_http::config::{ConfigError, LogFormat, LogSettings};
use coffer_http::{AppContext, Metrics};
use coffer_model::clock::{Clock, SystemClock};

use crate::cli::DevArgs;
use crate::credentials;
use crate::demo::{self, Demo};
use crate::{data_dir, master_keys, services};

/// How long `coffer dev` waits for the services' copies of the demo accounts before it
/// answers anyway: they arrive within moments, unless the machine is badly overloaded.
const DIRECTORY_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// A failure already written to the log: `main` prints nothing more for it.
#[derive(Debug)]
pub struct Logged;

impl std::fmt::Display for Logged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("coffer dev stopped; the log says why")
    }
}

impl std::error::Error for Logged {}

pub async fn run(args: DevArgs) -> anyhow::Result<()> {
    let log = log_settings(&args)?;
    coffer_http::telemetry::init(&log);
    let result = serve(args, &log).await;
    match result {
        // With JSON logs every line of the output is JSON, the last one too.
        Err(e) if log.format == LogFormat::Json => {
            tracing::error!(error = %format!("{e:#}"), "coffer dev stopped");
            Err(Logged.into())
        }
        other => other,
    }
}

/// Payments' settings from the flags: how it reaches providers and how long it waits.
fn payments_settings(args: &DevArgs) -> anyhow::Result<coffer_payments::PaymentsSettings> {
    if let Some((setting, why)) = coffer_payments::waits_refused(
        args.connector_timeout_ms,
        args.settle_after_ms,
        args.donor_wait_ms,
    ) {
        let flag = setting.trim_start_matches("payments.").replace('_', "-");
        anyhow::bail!("--{flag}: {why}");
    }
    let timeout = Duration::from_millis(args.connector_timeout_ms);
    let settle_after = Duration::from_millis(args.settle_after_ms);
    if let Some(why) = coffer_payments::stripe_api_refused(&args.stripe_api) {
        anyhow::bail!("--stripe-api {}: {why}", args.stripe_api);
    }
    Ok(coffer_payments::PaymentsSettings {
        connector_timeout: timeout,
        settle_after,
        donor_wait: Duration::from_millis(args.donor_wait_ms),
        providers: coffer_payments::ProviderSettings {
            stripe_api: args.stripe_api.clone(),
            raw_card_data: args.raw_card_data,
            timeout,
        },
        ..coffer_payments::PaymentsSettings::default()
    })
}

async fn serve(args: DevArgs, log: &LogSettings) -> anyhow::Result<()> {
    let listen: SocketAddr = args.listen.parse().with_context(|| {
        format!(
            "--listen {:?} is not an address such as 127.0.0.1:8080",
            args.listen
        )
    })?;

    let data_dir = data_dir::prepare(&args.data_dir)?;
    let secrets = master_keys::load_or_create(&data_dir)?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let keys = SharedKeys::default();
    let listener =
        TcpListener::bind(listen).with_context(|| format!("cannot listen on {listen}"))?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let standalone = services::start_all(
        &data_dir,
        Arc::clone(&clock),
        keys.clone(),
        &secrets,
        &base_url,
        notifications_settings(&args)?,
        payments_settings(&args)?,
    )
    .await?;
    let (modules, admin) = (standalone.modules, standalone.identity_admin);
    let demo = demo::ensure(&admin, &data_dir, &base_url).await?;

    let workers: Vec<_> = modules.iter().flat_map(|m| m.spawn_workers()).collect();
    // The demo accounts reach the other services through their events; answer once they
    // have (directory_copies.rs), so a first request naming one is not told it is unknown.
    let behind = standalone
        .directory_copies
        .wait_for(&demo.credentials().account_uuids, DIRECTORY_WAIT)
        .await;
    if !behind.is_empty() {
        tracing::warn!(
            services = ?behind,
            "these services do not know the demo accounts yet; requests naming them may \
             answer 404 until they do"
        );
    }
    announce(&demo, log.format, &data_dir);
    let ctx = AppContext {
        modules,
        verifier: Verifier::new(KeySource::Shared(keys), "coffer", clock),
        metrics: Metrics::new()?,
        body_limit: coffer_http::body::DEFAULT_LIMIT,
        trusted_proxies: coffer_http::TrustedProxies::none(),
        client_limits: coffer_http::ClientLimits {
            body_timeout: std::time::Duration::from_secs(args.body_timeout_seconds),
            connections_per_address: usize::try_from(args.connections_per_address)
                .unwrap_or(usize::MAX),
        },
    };
    let threads = coffer_http::threads::workers(args.workers);
    // The server stops on SIGINT and SIGTERM, finishing requests in flight.
    // Started from this thread, not a task of the runtime: the HTTP workers inherit its
    // normal priority, where the runtime's threads give way (main.rs, --background-nice).
    coffer_http::serve(listener, ctx, threads)?.await?;
    for worker in workers {
        worker.abort();
    }
    Ok(())
}

/// Notifications' settings from the command line (or the same variables as
/// `coffer-notifications` reads), checked as that binary checks them.
fn notifications_settings(
    args: &DevArgs,
) -> anyhow::Result<coffer_notifications::NotificationsSettings> {
    let section = coffer_notifications::config::NotificationsSection {
        allow_subnets: args.webhook_allow_subnets.clone(),
        extra_root_certs: args.webhook_extra_root_certs.clone(),
        ..Default::default()
    };
    let addresses = section.address_policy()?;
    if addresses.widened() {
        tracing::warn!(
            subnets = %section.allow_subnets,
            "webhook deliveries may reach the allowed subnets beyond public addresses"
        );
    }
    Ok(coffer_notifications::NotificationsSettings {
        addresses,
        extra_roots: section.extra_roots()?,
        ..Default::default()
    })
}

/// `--log-format` and `--log-level` (or `COFFER_LOG__LEVEL`), checked as the service
/// binaries check `log.*`.
fn log_settings(args: &DevArgs) -> anyhow::Result<LogSettings> {
    let format = match args.log_format.as_str() {
        "json" => LogFormat::Json,
        "text" => LogFormat::Text,
        other => anyhow::bail!("--log-format must be json or text, not {other:?}"),
    };
    let log = LogSettings {
        level: args.log_level.clone(),
        format,
        requests: args.log_requests,
    };
    log.validate().map_err(|e| match e {
        ConfigError::Invalid { message, .. } => anyhow::anyhow!(
            "--log-level (COFFER_LOG__LEVEL, the services' log.level) is invalid: {message}"
        ),
        other => other.into(),
    })?;
    Ok(log)
}

/// Where to start. The client secret is printed once, on the start that made the client:
/// a terminal's scrollback or a captured log should not hold it on every start, and the
/// file has it. JSON output is for log shippers, which keep what they read: it names the
/// file and shows nothing of the credentials.
fn announce(demo: &Demo, format: LogFormat, data_dir: &Path) {
    let c = demo.credentials();
    let file = credentials::path(data_dir);
    let captcha = coffer_onboarding::captcha::TEST_TOKEN;
    if format == LogFormat::Json {
        tracing::info!(
            base_url = %c.base_url,
            credentials = %file.display(),
            "Coffer is serving; the demo client's id and secret are in the credentials file"
        );
        tracing::warn!(
            captcha,
            "partner onboarding runs with onboarding.captcha = test: the captcha token passes; \
             never use this in production"
        );
        return;
    }
    println!("Coffer is serving at {}", c.base_url);
    println!("  client_id:         {}", c.client_id);
    let secret = match demo {
        Demo::Made(_) => c.client_secret.clone(),
        Demo::Kept(_) => format!("in {}", file.display()),
    };
    println!("  client_secret:     {secret}");
    println!("  organisation_uuid: {}", c.organisation_uuid);
    println!("  account_uuids:     {}", c.account_uuids.join(", "));
    if let Demo::Made(_) = demo {
        println!(
            "  (the secret is shown this once; all of it is kept in {})",
            file.display()
        );
    }
    println!(
        "Partner onboarding runs with onboarding.captcha = test: the captcha token \
         `{captcha}` passes. Never use this in production."
    );
}
