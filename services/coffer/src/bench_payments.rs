//! `coffer bench-payments`: card payments per second, payment reads per second (alone and
//! while payments are written), and the latency of a search with an aggregation, against a
//! running Coffer; with `--server-pid`, the server's anonymous memory and threads too.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::{Value, json};

use crate::bench::{Phase, load, percentile, proc_status};
use crate::credentials::{self, Credentials};

#[derive(Debug, clap::Args)]
pub struct BenchPaymentsArgs {
    /// credentials.json of the server under test.
    #[arg(long, default_value = "./data/credentials.json")]
    pub credentials: PathBuf,
    /// Seconds each throughput phase runs.
    #[arg(long, default_value_t = 10)]
    pub duration: u64,
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
    /// Searches timed one after another.
    #[arg(long, default_value_t = 50)]
    pub searches: usize,
    /// What to run, in order: `card` (payments written), `reads` (one payment read),
    /// `mixed` (both at once, each with `--concurrency` clients) and `search`.
    #[arg(long, value_delimiter = ',', default_value = "card,reads,search")]
    pub phases: Vec<String>,
    /// Where to get tokens, when identity is not behind the same address.
    #[arg(long)]
    pub identity_url: Option<String>,
    /// The server's process: its anonymous memory and threads are sampled meanwhile.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Payments made before the phases, which the reads go through in turn (1 to 10,000):
    /// distinct payments, as clients read them, so that no cache of one hot row (nor reads
    /// of one payment coalescing into one) flatters the figure.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub read_payments: u64,
}

#[derive(Debug, Serialize)]
struct Report {
    concurrency: usize,
    card_payments: Option<Phase>,
    payment_reads: Option<Phase>,
    /// Reads and writes at the same time, each with `concurrency` clients.
    reads_during_writes: Option<Phase>,
    writes_during_reads: Option<Phase>,
    search_p50_ms: Option<f64>,
    search_p99_ms: Option<f64>,
    search_hits: Option<i64>,
    memory: Option<Memory>,
}

/// What `/proc` said of the server: before the first phase, and the most seen during them.
#[derive(Debug, Serialize)]
struct Memory {
    anon_idle_kib: Option<u64>,
    anon_peak_kib: u64,
    threads_peak: u64,
}

/// A bearer token of the credentials' client, from `identity` (the server by default).
pub(crate) async fn bearer(
    http: &reqwest::Client,
    c: &Credentials,
    identity: Option<&str>,
) -> anyhow::Result<String> {
    let form = [
        ("grant_type", "client_credentials"),
        ("client_id", c.client_id.as_str()),
        ("client_secret", c.client_secret.as_str()),
    ];
    let identity = identity.unwrap_or(&c.base_url);
    let token: Value = http
        .post(format!("{identity}/oauth2/token"))
        .form(&form)
        .send()
        .await?
        .json()
        .await?;
    Ok(format!(
        "Bearer {}",
        token["access_token"].as_str().context("no access_token")?
    ))
}

/// The credentials beside `path` (a credentials.json) and their first account.
pub(crate) fn read_credentials(path: &std::path::Path) -> anyhow::Result<(Credentials, String)> {
    let dir = path.parent().map(PathBuf::from).unwrap_or_default();
    let c = credentials::read(&dir)?.context("credentials not found")?;
    let account = c
        .account_uuids
        .first()
        .context("credentials list no account")?
        .clone();
    Ok((c, account))
}

/// Samples the server's anonymous memory and threads every 100 ms until aborted.
fn sample(pid: u32, anon: Arc<AtomicU64>, threads: Arc<AtomicU64>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            if let Some(kib) = proc_status(pid, "RssAnon:") {
                anon.fetch_max(kib, Ordering::Relaxed);
            }
            if let Some(n) = proc_status(pid, "Threads:") {
                threads.fetch_max(n, Ordering::Relaxed);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
}

pub async fn run(args: BenchPaymentsArgs) -> anyhow::Result<()> {
    let (c, account) = read_credentials(&args.credentials)?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.concurrency * 2)
        .build()?;
    let bearer = bearer(&http, &c, args.identity_url.as_deref()).await?;
    let duration = Duration::from_secs(args.duration);
    let payment = json!({
        "account_uuid": account, "payment_method": "card",
        "amount": {"value": "1050", "currency": "CHF"},
        "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123"}
    });
    let first = http
        .post(format!("{}/payments", c.base_url))
        .header("authorization", &bearer)
        .json(&payment)
        .send()
        .await?;
    if first.status() != 201 {
        bail!(
            "POST /payments answered {}: {}",
            first.status(),
            first.text().await.unwrap_or_default()
        );
    }
    let paid: Value = first.json().await?;
    let anon_idle_kib = args.server_pid.and_then(|pid| proc_status(pid, "RssAnon:"));
    let (anon, threads) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let sampler = args
        .server_pid
        .map(|pid| sample(pid, Arc::clone(&anon), Arc::clone(&threads)));

    let writes = {
        let (http, url, bearer, payment) = (
            http.clone(),
            format!("{}/payments", c.base_url),
            bearer.clone(),
            payment.clone(),
        );
        move || {
            let req = http
                .post(&url)
                .header("authorization", &bearer)
                .json(&payment)
                .send();
            async move { req.await.is_ok_and(|r| r.status() == 201) }
        }
    };
    let read_urls: Arc<Vec<String>> = Arc::new(
        std::iter::once(Ok(paid.clone()))
            .chain(
                made(
                    &http,
                    &c.base_url,
                    &bearer,
                    &payment,
                    args.read_payments - 1,
                )
                .await,
            )
            .map(|p: anyhow::Result<Value>| {
                Ok(format!(
                    "{}/payments/{}",
                    c.base_url,
                    p?["uuid"].as_str().context("a payment without uuid")?
                ))
            })
            .collect::<anyhow::Result<_>>()?,
    );
    let reads = {
        let (http, bearer, next) = (http.clone(), bearer.clone(), Arc::new(AtomicUsize::new(0)));
        move || {
            let url = &read_urls[next.fetch_add(1, Ordering::Relaxed) % read_urls.len()];
            let req = http.get(url).header("authorization", &bearer).send();
            async move {
                match req.await {
                    // Read the body: a response is only served once it is all there.
                    Ok(r) if r.status() == 200 => r.bytes().await.is_ok(),
                    _ => false,
                }
            }
        }
    };
    let mut report = Report {
        concurrency: args.concurrency,
        card_payments: None,
        payment_reads: None,
        reads_during_writes: None,
        writes_during_reads: None,
        search_p50_ms: None,
        search_p99_ms: None,
        search_hits: None,
        memory: None,
    };
    for phase in &args.phases {
        match phase.as_str() {
            "card" => {
                report.card_payments = Some(load(args.concurrency, duration, writes.clone()).await);
            }
            "reads" => {
                report.payment_reads = Some(load(args.concurrency, duration, reads.clone()).await);
            }
            "mixed" => {
                let (w, r) = tokio::join!(
                    load(args.concurrency, duration, writes.clone()),
                    load(args.concurrency, duration, reads.clone())
                );
                report.writes_during_reads = Some(w);
                report.reads_during_writes = Some(r);
            }
            "search" => {
                let (p50, p99, hits) =
                    search(&http, &c.base_url, &bearer, &account, args.searches).await?;
                report.search_p50_ms = Some(p50);
                report.search_p99_ms = Some(p99);
                report.search_hits = Some(hits);
            }
            other => bail!("--phases: {other:?} is not card, reads, mixed or search"),
        }
    }
    if let Some(sampler) = sampler {
        sampler.abort();
        report.memory = Some(Memory {
            anon_idle_kib,
            anon_peak_kib: anon.load(Ordering::Relaxed),
            threads_peak: threads.load(Ordering::Relaxed),
        });
    }
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// `count` more payments like `payment`, made 16 at a time, each as it was answered.
async fn made(
    http: &reqwest::Client,
    base_url: &str,
    bearer: &str,
    payment: &Value,
    count: u64,
) -> Vec<anyhow::Result<Value>> {
    use futures_util::StreamExt;
    futures_util::stream::iter(0..count)
        .map(|_| async move {
            let res = http
                .post(format!("{base_url}/payments"))
                .header("authorization", bearer)
                .json(payment)
                .send()
                .await?;
            if res.status() != 201 {
                bail!("POST /payments answered {}", res.status());
            }
            Ok(res.json().await?)
        })
        .buffered(16)
        .collect()
        .await
}

/// The kept-counts search (`$match` on account and status, `term` on the method), timed
/// `times` times one after another: p50, p99 and the hits.
async fn search(
    http: &reqwest::Client,
    base_url: &str,
    bearer: &str,
    account: &str,
    times: usize,
) -> anyhow::Result<(f64, f64, i64)> {
    let search = json!({
        "query": {"$match": {"account_uuid": account, "status": "succeeded"}},
        "aggs": {"methods": {"type": "term", "field": "payment_method"}}
    });
    let mut took = Vec::with_capacity(times);
    let mut hits = 0;
    for _ in 0..times {
        let started = Instant::now();
        let res = http
            .post(format!("{base_url}/search/payments"))
            .header("authorization", bearer)
            .json(&search)
            .send()
            .await?;
        if res.status() != 200 {
            bail!("search answered {}", res.status());
        }
        let body: Value = res.json().await?;
        took.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
        hits = body["summary"]["hits"].as_i64().unwrap_or(0);
    }
    took.sort_unstable();
    Ok((percentile(&took, 0.5), percentile(&took, 0.99), hits))
}
