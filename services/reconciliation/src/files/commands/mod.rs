//! Reading one bank file: parse and process it outside any transaction, in its turn
//! (files/turns.rs), then write its report, its events and the matches it made in one
//! transaction, so a file is applied whole or not at all, and once.

use std::sync::Arc;

use crate::error::ReconciliationError;
use coffer_camt::Deadline;
use coffer_events::catalogue::{
    DIRECT_DEBIT_RECEIVED, DIRECT_DEBIT_RETURNED, PAYOUT_MATCHED, RECONCILIATION_REPORT_CREATED,
    WIRE_TRANSFER_RECEIVED,
};
use coffer_events::{Outbox, OutboxEvent, append};
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::{Value, json};

mod execute;

pub use execute::{Execution, execute};

use super::store as files;
use super::turns::Turn;
use crate::blueprints::domain::Processing;
use crate::blueprints::store::Blueprint;
use crate::payouts::store as payouts;
use crate::processing::outcome::{Created, DirectDebit, Outcome, WireTransfer};
use crate::processing::{self, Context, fit};
use crate::reports::domain::ReportStatus;
use crate::reports::record::{Report, TotalsColumn};
use crate::reports::store::{self as reports, Row};
use crate::state::ReconciliationState;

/// A file to read, with where it came from.
#[derive(Debug, Clone)]
pub struct Arrived {
    pub name: String,
    pub bytes: Arc<Vec<u8>>,
    pub source_uuid: Option<String>,
    /// Its row in `files`, when it was received through a source.
    pub file_uuid: Option<String>,
}

/// Where a file came from: what its report names, without its bytes.
#[derive(Debug, Clone)]
pub struct Origin {
    pub name: String,
    pub source_uuid: Option<String>,
    pub file_uuid: Option<String>,
}

impl Origin {
    /// The origin of a file received through a source.
    pub fn of(file: &files::Row) -> Self {
        Origin {
            name: file.name.clone(),
            source_uuid: file.source_uuid.clone(),
            file_uuid: Some(file.uuid.clone()),
        }
    }
}

/// What reading decided before anything is written, with no more of the file than its
/// report needs: the statements are dropped once processed, before the report is written.
enum Decided {
    Failed(String, Option<Summary>),
    Read(Summary, Outcome),
}

/// What a report says of the message it read.
struct Summary {
    message_type: &'static str,
    version: String,
    message_id: String,
    /// Each statement's account, as the file names it.
    accounts: Vec<String>,
}

impl Summary {
    fn of(document: &coffer_camt::Document) -> Self {
        Summary {
            message_type: document.message_type.as_str(),
            version: document.version.clone(),
            message_id: document.message_id.clone(),
            accounts: document
                .statements
                .iter()
                .filter_map(|s| {
                    s.account
                        .iban
                        .clone()
                        .or_else(|| s.account.other_id.clone())
                })
                .collect(),
        }
    }
}

/// Why a file's transaction stops when another file won a race for its payouts or its
/// waiting file.
const RACED: &str =
    "another file matched one of the same payouts at the same time; send the file again";

/// How far back payouts matched already are looked at, so that a statement sent again
/// under a new message id says which payouts it names were matched before.
const MATCHED_LOOKBACK_DAYS: i64 = 92;

/// Reads the file with its blueprint and answers its report (the single form), with no
/// turn to wait for: for a process that reads one file (`coffer reconcile`). A file
/// received through a source that was read already answers its first report.
pub async fn read(
    state: &ReconciliationState,
    blueprint: Blueprint,
    arrived: Arrived,
) -> Result<Report, ReconciliationError> {
    let row = read_within(state, blueprint, arrived, None).await?;
    Report::from_row(row, true).map_err(ReconciliationError::internal)
}

/// Reads the file in its turn (files/turns.rs): within its share of memory, given up with
/// a failed report once the turn's deadline has passed. Answers the report's row.
pub async fn read_in_turn(
    state: &ReconciliationState,
    turn: &Turn,
    blueprint: Blueprint,
    arrived: Arrived,
) -> Result<Row, ReconciliationError> {
    read_within(state, blueprint, arrived, Some(turn)).await
}

/// Writes a failed report for a file that is not read, saying why (it is over the memory
/// budget); `sha256` is its digest when its bytes are at hand.
pub async fn refuse(
    state: &ReconciliationState,
    blueprint: Blueprint,
    origin: Origin,
    sha256: Option<String>,
    why: String,
) -> Result<Row, ReconciliationError> {
    let sha = sha256.unwrap_or_default();
    write_report(state, blueprint, origin, sha, Decided::Failed(why, None)).await
}

async fn read_within(
    state: &ReconciliationState,
    blueprint: Blueprint,
    arrived: Arrived,
    turn: Option<&Turn>,
) -> Result<Row, ReconciliationError> {
    let account = blueprint.account_uuid.clone();
    let open = match blueprint.processing {
        Processing::MatchSettlementPayouts => {
            let since = state.clock.now().date() - time::Duration::days(MATCHED_LOOKBACK_DAYS);
            state
                .store
                .query(move |db| payouts::for_matching(db, &account, since))
                .await?
        }
        _ => Vec::new(),
    };
    let limits = match turn {
        Some(turn) => coffer_camt::Limits {
            max_memory: turn.share,
            ..state.limits
        },
        None => state.limits,
    };
    let deadline = turn.map(|t| t.deadline);
    let Arrived {
        name,
        bytes,
        source_uuid,
        file_uuid,
    } = arrived;
    let origin = Origin {
        name,
        source_uuid,
        file_uuid,
    };
    let bp = blueprint.clone();
    // The bytes go with the reading and are dropped with it, before the report is written.
    let (sha, decided) =
        tokio::task::spawn_blocking(move || decide(&bytes, &limits, deadline.as_ref(), &bp, &open))
            .await
            .map_err(ReconciliationError::internal)?;
    write_report(state, blueprint, origin, sha, decided).await
}

/// Parses, fits and processes the file: pure, and run on a blocking thread.
fn decide(
    bytes: &[u8],
    limits: &coffer_camt::Limits,
    deadline: Option<&Deadline>,
    blueprint: &Blueprint,
    open: &[crate::processing::payouts::Payout],
) -> (String, Decided) {
    let sha = coffer_secrets::sha256_hex(bytes);
    let parsed = match deadline {
        Some(deadline) => coffer_camt::parse_until(bytes, limits, deadline),
        None => coffer_camt::parse(bytes, limits),
    };
    let document = match parsed {
        Ok(document) => document,
        Err(e) => return (sha, Decided::Failed(e.to_string(), None)),
    };
    let summary = Summary::of(&document);
    if let Err(why) = fit::check(&document, blueprint) {
        return (sha, Decided::Failed(why, Some(summary)));
    }
    let outcome = processing::process(
        &document,
        &Context {
            blueprint,
            payouts: open,
        },
    );
    drop(document);
    if let Some(Err(late)) = deadline.map(Deadline::check) {
        return (sha, Decided::Failed(late.to_string(), Some(summary)));
    }
    (sha, Decided::Read(summary, outcome))
}

/// Writes the report, its events and the matches it made in one transaction.
async fn write_report(
    state: &ReconciliationState,
    blueprint: Blueprint,
    origin: Origin,
    sha: String,
    decided: Decided,
) -> Result<Row, ReconciliationError> {
    let (outbox, now) = (state.outbox.clone(), state.clock.unix());
    let decided = Arc::new(decided);
    let row = state
        .store
        .write(move |tx| write(tx, &outbox, &blueprint, &origin, &sha, &decided, now))
        .await?;
    state.outbox.committed();
    Ok(row)
}

fn write(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    blueprint: &Blueprint,
    origin: &Origin,
    sha: &str,
    decided: &Decided,
    now: i64,
) -> Result<Row, ReconciliationError> {
    if let Some(file) = &origin.file_uuid
        && let Some(done) = files::find(tx, file)?.and_then(|f| f.report_uuid)
        && let Some(row) = reports::find(tx, &done)?
    {
        return Ok(row);
    }
    let uuid = uuid::Uuid::new_v4();
    let report_uuid = uuid.to_string();
    let mut row = Row {
        uuid: report_uuid.clone(),
        organisation_uuid: blueprint.organisation_uuid.clone(),
        account_uuid: blueprint.account_uuid.clone(),
        blueprint_uuid: blueprint.uuid.clone(),
        source_uuid: origin.source_uuid.clone(),
        file_name: origin.name.clone(),
        file_sha256: sha.to_owned(),
        message_type: None,
        message_version: None,
        message_id: None,
        status: ReportStatus::Failed,
        reason: None,
        duplicate_of: None,
        entry_count: 0,
        transaction_count: 0,
        totals: json_text(&TotalsColumn::default())?,
        matched: "[]".into(),
        created_items: "[]".into(),
        unmatched: "[]".into(),
        notes: "[]".into(),
        created: now,
    };
    let mut events: Vec<OutboxEvent> = Vec::new();
    let summary = match decided {
        Decided::Failed(_, s) => s.as_ref(),
        Decided::Read(s, _) => Some(s),
    };
    if let Some(s) = summary {
        row.message_type = Some(s.message_type.to_owned());
        row.message_version = Some(s.version.clone());
        row.message_id = Some(s.message_id.clone());
    }
    match decided {
        Decided::Failed(why, _) => row.reason = Some(why.clone()),
        Decided::Read(s, outcome) => {
            row.entry_count = count(outcome.entry_count);
            row.transaction_count = count(outcome.transaction_count);
            row.totals = json_text(&TotalsColumn {
                totals: outcome.totals.clone(),
                accounts: s.accounts.clone(),
            })?;
            if let Some(first) =
                reports::processed_before(tx, &blueprint.account_uuid, &s.message_id, sha)?
            {
                row.status = ReportStatus::Duplicate;
                row.duplicate_of = Some(first);
            } else {
                row.status = ReportStatus::Processed;
                row.matched = json_text(&outcome.matched)?;
                row.created_items = json_text(&outcome.created)?;
                row.unmatched = json_text(&outcome.unmatched)?;
                row.notes = json_text(&outcome.notes)?;
                events.extend(applied(tx, outbox, blueprint, &report_uuid, outcome)?);
            }
        }
    }
    reports::insert(tx, &row)?;
    if let Some(file) = &origin.file_uuid
        && !files::mark_done(tx, file, &report_uuid)?
    {
        return Err(ReconciliationError::ChangedMeanwhile(RACED));
    }
    let report = Report::listed(&row).map_err(|e| DieselError::SerializationError(e.into()))?;
    let (organisation, account) = (
        blueprint.organisation_uuid.parse().ok(),
        blueprint.account_uuid.parse().ok(),
    );
    events.push(outbox.event(
        &RECONCILIATION_REPORT_CREATED,
        uuid,
        organisation,
        account,
        to_value(&report)?,
    ));
    append(tx, &events, None)?;
    Ok(row)
}

/// The outcome's effects: payouts marked matched here, and the events payments acts on.
fn applied(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    blueprint: &Blueprint,
    report: &str,
    outcome: &Outcome,
) -> Result<Vec<OutboxEvent>, ReconciliationError> {
    let (organisation, account) = (
        blueprint.organisation_uuid.parse().ok(),
        blueprint.account_uuid.parse().ok(),
    );
    let mut events = Vec::new();
    for m in &outcome.matched {
        if !payouts::mark_matched(tx, &m.payout_uuid, report)? {
            return Err(ReconciliationError::ChangedMeanwhile(RACED));
        }
        let id = m
            .payout_uuid
            .parse()
            .map_err(|e: uuid::Error| DieselError::SerializationError(Box::new(e)))?;
        let data = json!({
            "payout_uuid": m.payout_uuid,
            "reference": m.reference,
            "value_date": m.value_date,
            "amount": money(&m.amount),
            "report_uuid": report,
        });
        events.push(outbox.event(&PAYOUT_MATCHED, id, organisation, account, data));
    }
    for c in &outcome.created {
        let (kind, id, data) = match c {
            Created::DirectDebit(d) if d.kind == "direct_debit_returned" => (
                &DIRECT_DEBIT_RETURNED,
                &d.debit_uuid,
                debit_data(blueprint, report, d),
            ),
            Created::DirectDebit(d) => (
                &DIRECT_DEBIT_RECEIVED,
                &d.debit_uuid,
                debit_data(blueprint, report, d),
            ),
            Created::WireTransfer(w) => (
                &WIRE_TRANSFER_RECEIVED,
                &w.transfer_uuid,
                transfer_data(blueprint, report, w),
            ),
        };
        let id = id
            .parse()
            .map_err(|e: uuid::Error| DieselError::SerializationError(Box::new(e)))?;
        events.push(outbox.event(kind, id, organisation, account, data));
    }
    Ok(events)
}

fn transfer_data(blueprint: &Blueprint, report: &str, w: &WireTransfer) -> Value {
    json!({
        "transfer_uuid": w.transfer_uuid,
        "account_uuid": blueprint.account_uuid,
        "organisation_uuid": blueprint.organisation_uuid,
        "report_uuid": report,
        "amount": money(&w.amount),
        "value_date": w.value_date,
        "reference": w.reference,
        "reference_type": w.reference_type,
        "debtor": w.debtor,
    })
}

fn debit_data(blueprint: &Blueprint, report: &str, c: &DirectDebit) -> Value {
    json!({
        "debit_uuid": c.debit_uuid,
        "account_uuid": blueprint.account_uuid,
        "organisation_uuid": blueprint.organisation_uuid,
        "report_uuid": report,
        "amount": money(&c.amount),
        "value_date": c.value_date,
        "end_to_end_id": c.end_to_end_id,
        "mandate_reference": c.mandate_reference,
        "reason": c.reason,
        "debtor": c.debtor,
    })
}

/// An amount as Coffer's events carry money: minor units as a string of digits.
fn money(amount: &crate::processing::outcome::ReportAmount) -> Value {
    json!({"value": amount.value.map(|v| v.to_string()), "currency": amount.currency})
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, DieselError> {
    serde_json::to_value(value).map_err(|e| DieselError::SerializationError(Box::new(e)))
}

fn json_text<T: serde::Serialize>(value: &T) -> Result<String, DieselError> {
    serde_json::to_string(value).map_err(|e| DieselError::SerializationError(Box::new(e)))
}
