//! The memory reading bank files takes: reads the files named on the command line through
//! the service's own path (each in its turn, parsed, processed and reported into a SQLite
//! database), side by side, and prints each file's share of the budget and the process's
//! peak resident memory (VmHWM) after each. services/reconciliation/bench/memory.sh runs
//! it on the benchmark's 105 MB statement (docs/benchmarks.md).
//!
//! `read_peak <database url> <file>...`

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use coffer_events::Outbox;
use coffer_model::clock::{Clock, SystemClock};
use coffer_reconciliation::blueprints::domain::{BlueprintInput, MessageType, Processing};
use coffer_reconciliation::blueprints::store::{self as blueprints, Blueprint};
use coffer_reconciliation::files::commands::{Arrived, read_in_turn};
use coffer_reconciliation::files::turns::Turns;
use coffer_reconciliation::{DEFAULT_MEMORY_BUDGET, DEFAULT_READERS, ReconciliationState};

/// This process's resident memory now and at its peak, in MiB, from /proc (Linux).
fn resident() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .context("usage: read_peak <database url> <file>...")?;
    let files: Vec<String> = args.collect();
    let store = coffer_store::Store::connect(&url, &Default::default())?;
    let migrating = store.clone();
    tokio::task::spawn_blocking(move || migrating.migrate(&coffer_reconciliation::MIGRATIONS))
        .await??;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let state = Arc::new(ReconciliationState {
        store,
        outbox: Outbox::new("coffer", Arc::clone(&clock)),
        clock,
        secrets: None,
        objects: None,
        read_every: Duration::from_secs(5),
        sftp_addresses: Default::default(),
        limits: coffer_camt::Limits {
            max_bytes: 512 * 1024 * 1024,
            ..Default::default()
        },
    });
    let turns = Arc::new(Turns::new(
        DEFAULT_READERS,
        DEFAULT_MEMORY_BUDGET,
        Duration::from_secs(600),
    ));
    println!(
        "before reading: {:?} MiB resident, {:?} MiB at the peak",
        resident().0,
        resident().1
    );
    let mut readings = tokio::task::JoinSet::new();
    for (i, path) in files.into_iter().enumerate() {
        // Each file its own organisation, so they are read side by side.
        let owner = uuid::Uuid::new_v4();
        let input = BlueprintInput {
            name: format!("bench {i}"),
            organisation_uuid: owner,
            account_uuid: owner,
            message_type: MessageType::Camt053,
            processing: Processing::MatchSettlementPayouts,
            versions: Vec::new(),
            ibans: Vec::new(),
        };
        let blueprint = Blueprint::new(input, 0);
        let kept = blueprint.clone();
        state
            .store
            .write(move |tx| blueprints::insert(tx, &kept).map_err(coffer_store::StoreError::from))
            .await?;
        let (state, turns) = (Arc::clone(&state), Arc::clone(&turns));
        readings.spawn(async move {
            let size = std::fs::metadata(&path)?.len() as usize;
            let turn = turns
                .take(&blueprint.organisation_uuid, size)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let started = Instant::now();
            let bytes = std::fs::read(&path)?;
            let arrived = Arrived {
                name: path.clone(),
                bytes: Arc::new(bytes),
                source_uuid: None,
                file_uuid: None,
            };
            let share = turn.share;
            let row = read_in_turn(&state, &turn, blueprint, arrived)
                .await
                .map_err(|e| anyhow::anyhow!("{}", e.message()))?;
            let (now, peak) = resident();
            println!(
                "{path}: {size} bytes, share {} MiB; {} in {:.2} s ({} entries, {} unmatched text bytes); {now} MiB resident, {peak} MiB at the peak",
                share / (1024 * 1024),
                row.status,
                started.elapsed().as_secs_f64(),
                row.entry_count,
                row.unmatched.len(),
            );
            anyhow::Ok(())
        });
    }
    while let Some(done) = readings.join_next().await {
        done??;
    }
    Ok(())
}
