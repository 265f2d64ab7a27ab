//! `coffer dev`: every service on one port, from SQLite files under the data directory.

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use coffer_auth::{KeySource, SharedKeys, Verifier};
use coffer_http::config::{LogFormat, LogSettings};
use coffer_http::{AppContext, Metrics};
use coffer_model::clock::{Clock, SystemClock};

use crate::cli::DevArgs;
use crate::credentials::{self, Credentials};
use crate::{data_dir, demo, master_keys, services};

pub async fn run(args: DevArgs) -> anyhow::Result<()> {
    let format = match args.log_format.as_str() {
        "json" => LogFormat::Json,
        "text" => LogFormat::Text,
        other => anyhow::bail!("--log-format must be json or text, not {other:?}"),
    };
    coffer_http::telemetry::init(&LogSettings {
        level: "info".into(),
        format,
    });
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
    )
    .await?;
    let (modules, admin) = (standalone.modules, standalone.identity_admin);
    let credentials = demo::ensure(&admin, &data_dir, &base_url).await?;
    announce(&credentials, &data_dir);

    let workers: Vec<_> = modules.iter().flat_map(|m| m.spawn_workers()).collect();
    let ctx = AppContext {
        modules,
        verifier: Verifier::new(KeySource::Shared(keys), "coffer", clock),
        metrics: Metrics::new()?,
        body_limit: coffer_http::body::DEFAULT_LIMIT,
        trusted_proxies: coffer_http::TrustedProxies::none(),
    };
    let threads = if args.workers == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        args.workers
    };
    // The server stops on SIGINT and SIGTERM, finishing requests in flight.
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

fn announce(c: &Credentials, data_dir: &Path) {
    println!("Coffer is serving at {}", c.base_url);
    println!("  client_id:         {}", c.client_id);
    println!("  client_secret:     {}", c.client_secret);
    println!("  organisation_uuid: {}", c.organisation_uuid);
    println!("  account_uuids:     {}", c.account_uuids.join(", "));
    println!("  (also in {})", credentials::path(data_dir).display());
    println!(
        "Partner onboarding runs with onboarding.captcha = test: the captcha token \
         `{}` passes. Never use this in production.",
        coffer_onboarding::captcha::TEST_TOKEN
    );
}
