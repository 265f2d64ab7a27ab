//! `coffer bench`: loads a running Coffer over loopback and reports token grants per
//! second, authenticated organisation reads per second with p50/p99 latency, and the
//! server's resident memory at idle and under load. Figures go to docs/benchmarks.md.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;

use crate::credentials;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// credentials.json of the server under test (as `coffer dev` writes it).
    #[arg(long, default_value = "./data/credentials.json")]
    pub credentials: PathBuf,
    /// Seconds each phase runs.
    #[arg(long, default_value_t = 10)]
    pub duration: u64,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
    /// The server's process id, to read its resident memory from /proc.
    #[arg(long)]
    pub server_pid: Option<u32>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Phase {
    requests: u64,
    errors: u64,
    per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
}

#[derive(Debug, Serialize)]
struct Report {
    concurrency: usize,
    seconds_per_phase: u64,
    token_grants: Phase,
    organisation_reads: Phase,
    rss_idle_kib: Option<u64>,
    rss_peak_under_load_kib: Option<u64>,
}

pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    proc_status(pid, "VmRSS:")
}

/// A number from `/proc/{pid}/status` (`VmRSS:`, `RssAnon:`, `Threads:`), in its unit.
pub(crate) fn proc_status(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub(crate) fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() - 1) as f64 * p).round() as usize;
    f64::from(sorted[rank]) / 1000.0
}

/// Runs `concurrency` loops of `request` for `duration`, timing each call in microseconds.
pub(crate) async fn load<F, Fut>(concurrency: usize, duration: Duration, request: F) -> Phase
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let request = Arc::new(request);
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        let (request, stop) = (Arc::clone(&request), Arc::clone(&stop));
        tasks.push(tokio::spawn(async move {
            let (mut latencies, mut errors) = (Vec::new(), 0u64);
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                if request().await {
                    latencies.push(u32::try_from(t.elapsed().as_micros()).unwrap_or(u32::MAX));
                } else {
                    errors += 1;
                }
            }
            (latencies, errors)
        }));
    }
    tokio::time::sleep(duration).await;
    stop.store(true, Ordering::Relaxed);
    let (mut all, mut errors) = (Vec::new(), 0);
    for task in tasks {
        if let Ok((latencies, e)) = task.await {
            all.extend(latencies);
            errors += e;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort_unstable();
    Phase {
        requests: all.len() as u64,
        errors,
        per_second: all.len() as f64 / elapsed,
        p50_ms: percentile(&all, 0.50),
        p99_ms: percentile(&all, 0.99),
    }
}

pub async fn run(args: BenchArgs) -> anyhow::Result<()> {
    let dir = args
        .credentials
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default();
    let c = credentials::read(&dir)?.with_context(|| {
        format!(
            "{} not found; start `coffer dev` first",
            args.credentials.display()
        )
    })?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.concurrency)
        .build()?;
    let duration = Duration::from_secs(args.duration);
    let token_url = format!("{}/oauth2/token", c.base_url);
    let form = [
        ("grant_type", "client_credentials".to_owned()),
        ("client_id", c.client_id.clone()),
        ("client_secret", c.client_secret.clone()),
    ];
    let first = http.post(&token_url).form(&form).send().await?;
    if first.status() != 200 {
        bail!(
            "the token endpoint answered {}; are the credentials current?",
            first.status()
        );
    }
    let token = first.json::<serde_json::Value>().await?["access_token"]
        .as_str()
        .context("no access_token in the token response")?
        .to_owned();
    let rss_idle_kib = args.server_pid.and_then(rss_kib);

    let grants = {
        let (http, url, form) = (http.clone(), token_url.clone(), form.clone());
        load(args.concurrency, duration, move || {
            let req = http.post(&url).form(&form).send();
            async move { req.await.is_ok_and(|r| r.status() == 200) }
        })
        .await
    };

    let peak = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let sampler = args.server_pid.map(|pid| {
        let peak = Arc::clone(&peak);
        tokio::spawn(async move {
            loop {
                if let Some(kib) = rss_kib(pid) {
                    peak.fetch_max(kib, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    });
    let reads = {
        let url = format!("{}/organisations/{}", c.base_url, c.organisation_uuid);
        let bearer = format!("Bearer {token}");
        load(args.concurrency, duration, move || {
            let req = http.get(&url).header("authorization", &bearer).send();
            async move {
                match req.await {
                    // Read the body: a response is only served once it is all there.
                    Ok(r) if r.status() == 200 => r.bytes().await.is_ok(),
                    _ => false,
                }
            }
        })
        .await
    };
    if let Some(sampler) = sampler {
        sampler.abort();
    }
    let report = Report {
        concurrency: args.concurrency,
        seconds_per_phase: args.duration,
        token_grants: grants,
        organisation_reads: reads,
        rss_idle_kib,
        rss_peak_under_load_kib: args.server_pid.map(|_| peak.load(Ordering::Relaxed)),
    };
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
