//! `coffer bench-search`: the search shapes a dashboard asks on every page view, each timed
//! one after another against a running Coffer whose payments were seeded in bulk
//! (scripts/bench-search.sh). Each answer is also reduced to a digest, so two servers (or
//! two versions) can be checked to answer alike.

use std::hash::Hasher;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use serde::Serialize;
use serde_json::{Value, json};

use crate::bench::percentile;
use crate::bench_payments::{bearer, read_credentials};

#[derive(Debug, clap::Args)]
pub struct BenchSearchArgs {
    /// credentials.json of the server under test.
    #[arg(long, default_value = "./data/credentials.json")]
    pub credentials: PathBuf,
    /// Times each shape is asked, one after another.
    #[arg(long, default_value_t = 20)]
    pub searches: usize,
    /// The end of the seeded payments (Unix seconds): the 30-day range ends here.
    #[arg(long)]
    pub now: i64,
    /// Only these shapes (by name); all of them by default.
    #[arg(long, value_delimiter = ',')]
    pub shapes: Vec<String>,
    /// Where to get tokens, when identity is not behind the same address.
    #[arg(long)]
    pub identity_url: Option<String>,
}

#[derive(Debug, Serialize)]
struct Timed {
    shape: &'static str,
    p50_ms: f64,
    p99_ms: f64,
    hits: i64,
    /// FNV-1a of the total, the aggregations and the first hit's sort value.
    digest: String,
}

/// Every shape, by name: the request's body for account `account`, the range ending `now`.
pub(crate) fn shapes(account: &str, now: i64) -> Vec<(&'static str, Value)> {
    let month_ago = now - 30 * 86_400;
    vec![
        (
            "counts",
            json!({"query": {"$match": {"account_uuid": account, "status": "succeeded"}},
                   "aggs": {"methods": {"type": "term", "field": "payment_method"}}}),
        ),
        (
            "histogram",
            json!({"query": {"$match": {"account_uuid": account}}, "size": 0,
                   "aggs": {"per_month": {"type": "date_histogram", "field": "created",
                                          "interval": "month", "time_zone": "Europe/Zurich"}}}),
        ),
        (
            "stats",
            json!({"query": {"$match": {"account_uuid": account, "status": "succeeded"}}, "size": 0,
                   "aggs": {"amounts": {"type": "stats", "field": "amount.value"}}}),
        ),
        (
            "campaign_match",
            json!({"query": {"$match": {"account_uuid": account, "custom_parameters.campaign": "spring-3"}}}),
        ),
        (
            "campaign_term",
            json!({"query": {"$match": {"account_uuid": account}}, "size": 0,
                   "aggs": {"campaigns": {"type": "term", "field": "custom_parameters.campaign"}}}),
        ),
        (
            "recent_by_amount",
            json!({"query": {"$and": [{"$match": {"account_uuid": account}},
                                      {"$range": {"created": {"gte": month_ago, "lt": now}}}]},
                   "sort": [{"field": "amount.value", "direction": "desc"}]}),
        ),
    ]
}

/// FNV-1a of the text's bytes alone (`Hasher::write`, not `Hash::hash`, which would add
/// a terminator), so digests stay comparable with those docs/benchmarks.md records.
fn fnv1a(text: &str) -> String {
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(text.as_bytes());
    format!("{:016x}", hasher.finish())
}

pub async fn run(args: BenchSearchArgs) -> anyhow::Result<()> {
    let (c, account) = read_credentials(&args.credentials)?;
    let http = reqwest::Client::new();
    let bearer = bearer(&http, &c, args.identity_url.as_deref()).await?;
    let mut report = Vec::new();
    for (shape, body) in shapes(&account, args.now) {
        if !args.shapes.is_empty() && !args.shapes.iter().any(|s| s == shape) {
            continue;
        }
        let (mut took, mut answer) = (Vec::with_capacity(args.searches), Value::Null);
        for _ in 0..args.searches.max(1) {
            let started = Instant::now();
            let res = http
                .post(format!("{}/search/payments", c.base_url))
                .header("authorization", &bearer)
                .json(&body)
                .send()
                .await?;
            let status = res.status();
            let text = res.text().await?;
            if status != 200 {
                bail!("the {shape} search answered {status}: {text}");
            }
            took.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
            answer = serde_json::from_str(&text)?;
        }
        took.sort_unstable();
        let digested = json!([
            answer["summary"]["hits"],
            answer["aggregations"],
            answer["summary"]["last_sort_values"][0]
        ]);
        let timed = Timed {
            shape,
            p50_ms: percentile(&took, 0.5),
            p99_ms: percentile(&took, 0.99),
            hits: answer["summary"]["hits"].as_i64().unwrap_or(0),
            digest: fnv1a(&digested.to_string()),
        };
        // Each shape as it is done: at ten million payments a run takes minutes.
        eprintln!("{}", serde_json::to_string(&timed)?);
        report.push(timed);
    }
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
