//! `coffer bench-payments`: card payments per second, payment reads per second, and the
//! latency of a search with an aggregation, against a running Coffer.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::{Value, json};

use crate::bench::{Phase, load, percentile};
use crate::credentials;

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
    /// Only time the search (the payments are already there).
    #[arg(long)]
    pub search_only: bool,
    /// Where to get tokens, when identity is not behind the same address.
    #[arg(long)]
    pub identity_url: Option<String>,
}

#[derive(Debug, Serialize)]
struct Report {
    concurrency: usize,
    card_payments: Option<Phase>,
    payment_reads: Option<Phase>,
    search_p50_ms: f64,
    search_p99_ms: f64,
    search_hits: i64,
}

pub async fn run(args: BenchPaymentsArgs) -> anyhow::Result<()> {
    let dir = args
        .credentials
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default();
    let c = credentials::read(&dir)?.context("credentials not found")?;
    let account = c
        .account_uuids
        .first()
        .context("credentials list no account")?
        .clone();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.concurrency)
        .build()?;
    let form = [
        ("grant_type", "client_credentials".to_owned()),
        ("client_id", c.client_id.clone()),
        ("client_secret", c.client_secret.clone()),
    ];
    let identity = args
        .identity_url
        .clone()
        .unwrap_or_else(|| c.base_url.clone());
    let token: Value = http
        .post(format!("{identity}/oauth2/token"))
        .form(&form)
        .send()
        .await?
        .json()
        .await?;
    let bearer = format!(
        "Bearer {}",
        token["access_token"].as_str().context("no access_token")?
    );
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
    let (mut card_payments, mut payment_reads) = (None, None);
    if !args.search_only {
        card_payments = Some({
            let (http, url, bearer, body) = (
                http.clone(),
                format!("{}/payments", c.base_url),
                bearer.clone(),
                payment.clone(),
            );
            load(args.concurrency, duration, move || {
                let req = http
                    .post(&url)
                    .header("authorization", &bearer)
                    .json(&body)
                    .send();
                async move { req.await.is_ok_and(|r| r.status() == 201) }
            })
            .await
        });
        payment_reads = Some({
            let url = format!(
                "{}/payments/{}",
                c.base_url,
                paid["uuid"].as_str().unwrap_or_default()
            );
            let (http, bearer) = (http.clone(), bearer.clone());
            load(args.concurrency, duration, move || {
                let req = http.get(&url).header("authorization", &bearer).send();
                async move {
                    match req.await {
                        Ok(r) if r.status() == 200 => r.bytes().await.is_ok(),
                        _ => false,
                    }
                }
            })
            .await
        });
    }
    let search = json!({
        "query": {"$match": {"account_uuid": account, "status": "succeeded"}},
        "aggs": {"methods": {"type": "term", "field": "payment_method"}}
    });
    let mut times = Vec::with_capacity(args.searches);
    let mut hits = 0;
    for _ in 0..args.searches {
        let started = Instant::now();
        let res = http
            .post(format!("{}/search/payments", c.base_url))
            .header("authorization", &bearer)
            .json(&search)
            .send()
            .await?;
        if res.status() != 200 {
            bail!("search answered {}", res.status());
        }
        let body: Value = res.json().await?;
        times.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
        hits = body["summary"]["hits"].as_i64().unwrap_or(0);
    }
    times.sort_unstable();
    let report = Report {
        concurrency: args.concurrency,
        card_payments,
        payment_reads,
        search_p50_ms: percentile(&times, 0.5),
        search_p99_ms: percentile(&times, 0.99),
        search_hits: hits,
    };
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
