//! `coffer reconcile FILE --blueprint UUID`: reads a bank file with a blueprint into
//! reconciliation's database, as an upload would be read (the same command, so the same
//! report, matches and events), and prints the report as a table. Large files show a
//! progress bar while they are loaded and a spinner while they are read.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use coffer_events::Outbox;
use coffer_model::clock::{Clock, SystemClock};
use coffer_reconciliation::ReconciliationState;
use coffer_reconciliation::files::commands::{Arrived, read};
use coffer_reconciliation::reports::record::Report;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::ReconcileArgs;
use crate::services;

/// Files above this show a progress bar while they load.
const LARGE: u64 = 8 * 1024 * 1024;

pub async fn run(args: ReconcileArgs) -> anyhow::Result<()> {
    let store = match &args.reconciliation_database_url {
        Some(url) => services::open_url(url, coffer_reconciliation::MIGRATIONS).await?,
        None => services::open(&args.data_dir, coffer_reconciliation::MIGRATIONS).await?,
    };
    let key = args.blueprint.to_string();
    let blueprint = store
        .query(move |db| coffer_reconciliation::blueprints::store::find(db, &key))
        .await?
        .with_context(|| format!("no blueprint {}", args.blueprint))?;
    let limits = coffer_camt::Limits {
        max_bytes: args.max_file_bytes,
        ..coffer_camt::Limits::default()
    };
    let bytes = load(&args.file, limits.max_bytes)?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let state = ReconciliationState {
        store,
        outbox: Outbox::new(args.events_prefix.clone(), Arc::clone(&clock)),
        clock,
        secrets: None,
        objects: None,
        read_every: Duration::from_secs(5),
        // The command reads a local file; it reaches no SFTP server.
        sftp_addresses: Default::default(),
        limits,
    };
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let spinner = (bytes.len() as u64 > LARGE).then(|| {
        let s = ProgressBar::new_spinner().with_message(format!("reading {name}"));
        s.enable_steady_tick(Duration::from_millis(120));
        s
    });
    let arrived = Arrived {
        name,
        bytes: Arc::new(bytes),
        source_uuid: None,
        file_uuid: None,
    };
    let report = read(&state, blueprint, arrived)
        .await
        .map_err(|e| anyhow::anyhow!("{}", e.message()))?;
    if let Some(s) = spinner {
        s.finish_and_clear();
    }
    print!("{}", table(&report));
    Ok(())
}

/// The file's bytes, refused above `max` before they are read; a bar for large files.
fn load(path: &std::path::Path, max: usize) -> anyhow::Result<Vec<u8>> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let size = file.metadata()?.len();
    if size > max as u64 {
        anyhow::bail!(
            "{} is {size} bytes, more than the {max} bytes a bank file may have (--max-file-bytes)",
            path.display()
        );
    }
    let bar = (size > LARGE).then(|| {
        let bar = ProgressBar::new(size);
        bar.set_style(
            ProgressStyle::with_template("loading {bar:40} {bytes}/{total_bytes} {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut chunk = vec![0u8; 1024 * 1024];
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..n]);
        if let Some(bar) = &bar {
            bar.inc(n as u64);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(bytes)
}

/// The report as a person reads it: its facts, its totals, then each item.
fn table(r: &Report) -> String {
    let mut out = String::new();
    let mut row = |k: &str, v: String| out.push_str(&format!("{k:<18} {v}\n"));
    row("report", r.uuid.clone());
    row("status", r.status.to_string());
    if let Some(reason) = &r.reason {
        row("reason", reason.clone());
    }
    if let Some(first) = &r.duplicate_of {
        row("duplicate of", first.clone());
    }
    row("file", r.file_name.clone());
    row(
        "message",
        format!(
            "{} {} {}",
            r.message_type.as_deref().unwrap_or("-"),
            r.message_version.as_deref().unwrap_or("-"),
            r.message_id.as_deref().unwrap_or("-")
        ),
    );
    row("accounts", r.accounts.join(", "));
    row(
        "entries",
        format!("{} ({} transactions)", r.entry_count, r.transaction_count),
    );
    row(
        "matched/created",
        format!(
            "{} / {} ({} unmatched)",
            r.matched_count, r.created_count, r.unmatched_count
        ),
    );
    if !r.totals.is_empty() {
        out.push_str(&format!(
            "\n{:<8} {:>20} {:>20} {:>8}\n",
            "currency", "credits", "debits", "entries"
        ));
        for t in &r.totals {
            out.push_str(&format!(
                "{:<8} {:>20} {:>20} {:>8}\n",
                t.currency, t.credits, t.debits, t.entries
            ));
        }
    }
    for note in &r.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    if let Some(entries) = &r.entries {
        for (kind, items) in [
            ("matched", &entries["matched"]),
            ("created", &entries["created"]),
            ("unmatched", &entries["unmatched"]),
        ] {
            let Some(items) = items.as_array().filter(|i| !i.is_empty()) else {
                continue;
            };
            out.push_str(&format!("\n{kind}\n"));
            for item in items {
                let at = format!(
                    "{}/{}{}",
                    item["statement"],
                    item["entry"],
                    item["transaction"]
                        .as_u64()
                        .map(|t| format!("/{t}"))
                        .unwrap_or_default()
                );
                let amount = format!(
                    "{} {}",
                    item["amount"]["text"].as_str().unwrap_or_default(),
                    item["amount"]["currency"].as_str().unwrap_or_default()
                );
                let what = item["reason"]
                    .as_str()
                    .or(item["payout_uuid"].as_str())
                    .or(item["kind"].as_str())
                    .unwrap_or_default();
                out.push_str(&format!("  {at:<10} {amount:>24}  {what}\n"));
            }
        }
    }
    out
}
