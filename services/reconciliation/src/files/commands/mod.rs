//! Reading one bank file: parse and process it outside any transaction, then write its
//! report, its events and the matches it made in one transaction, so a file is applied
//! whole or not at all, and once.

use std::sync::Arc;

use coffer_events::catalogue::{
    DIRECT_DEBIT_RECEIVED, DIRECT_DEBIT_RETURNED, PAYOUT_MATCHED, RECONCILIATION_REPORT_CREATED,
    WIRE_TRANSFER_RECEIVED,
};
use coffer_events::{Outbox, OutboxEvent, append};
use coffer_http::ApiError;
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::{Value, json};

mod execute;

pub use execute::{Execution, execute};

use super::store as files;
use crate::ReconciliationState;
use crate::blueprints::domain::Processing;
use crate::blueprints::store::Blueprint;
use crate::payouts::store as payouts;
use crate::processing::outcome::{Created, DirectDebit, Outcome, WireTransfer};
use crate::processing::{self, Context, fit};
use crate::reports::domain::ReportStatus;
use crate::reports::record::{Report, TotalsColumn};
use crate::reports::store::{self as reports, Row};

/// A file to read, with where it came from.
#[derive(Debug, Clone)]
pub struct Arrived {
    pub name: String,
    pub bytes: Arc<Vec<u8>>,
    pub source_uuid: Option<String>,
    /// Its row in `files`, when it was received through a source.
    pub file_uuid: Option<String>,
}

/// What reading decided before anything is written.
enum Decided {
    Failed(String, Option<coffer_camt::Document>),
    Read(Box<coffer_camt::Document>, Outcome),
}

/// Why a file's transaction stopped.
#[derive(Debug, thiserror::Error)]
enum WriteError {
    #[error("another file matched one of the same payouts at the same time")]
    Raced,
    #[error(transparent)]
    Db(#[from] DieselError),
    #[error(transparent)]
    Store(#[from] coffer_store::StoreError),
}

/// How far back payouts matched already are looked at, so that a statement sent again
/// under a new message id says which payouts it names were matched before.
const MATCHED_LOOKBACK_DAYS: i64 = 92;

/// Reads the file with its blueprint and answers its report. A file received through a
/// source that was read already answers its first report.
pub async fn read(
    state: &ReconciliationState,
    blueprint: Blueprint,
    arrived: Arrived,
) -> Result<Report, ApiError> {
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
    let limits = state.limits;
    let (bytes, bp) = (Arc::clone(&arrived.bytes), blueprint.clone());
    let (sha, decided) = tokio::task::spawn_blocking(move || {
        let sha = coffer_secrets::sha256_hex(bytes.as_slice());
        let decided = match coffer_camt::parse(&bytes, &limits) {
            Err(e) => Decided::Failed(e.to_string(), None),
            Ok(document) => match fit::check(&document, &bp) {
                Err(why) => Decided::Failed(why, Some(document)),
                Ok(()) => {
                    let outcome = processing::process(
                        &document,
                        &Context {
                            blueprint: &bp,
                            payouts: &open,
                        },
                    );
                    Decided::Read(Box::new(document), outcome)
                }
            },
        };
        (sha, decided)
    })
    .await
    .map_err(ApiError::internal)?;
    let (outbox, now) = (state.outbox.clone(), state.clock.unix());
    let decided = Arc::new(decided);
    let written = state
        .store
        .write(move |tx| write(tx, &outbox, &blueprint, &arrived, &sha, &decided, now))
        .await;
    let row = match written {
        Ok(row) => row,
        Err(WriteError::Raced) => {
            return Err(ApiError::conflict(
                "another file matched one of the same payouts at the same time; send the file again",
            ));
        }
        Err(WriteError::Db(e)) => return Err(ApiError::from(coffer_http::Failure::from(e))),
        Err(WriteError::Store(e)) => return Err(ApiError::from(e)),
    };
    state.outbox.committed();
    Report::from_row(row, true).map_err(ApiError::internal)
}

fn write(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    blueprint: &Blueprint,
    arrived: &Arrived,
    sha: &str,
    decided: &Decided,
    now: i64,
) -> Result<Row, WriteError> {
    if let Some(file) = &arrived.file_uuid
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
        source_uuid: arrived.source_uuid.clone(),
        file_name: arrived.name.clone(),
        file_sha256: sha.to_owned(),
        message_type: None,
        message_version: None,
        message_id: None,
        status: ReportStatus::Failed.as_str().to_owned(),
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
    let document = match decided {
        Decided::Failed(_, d) => d.as_ref(),
        Decided::Read(d, _) => Some(d.as_ref()),
    };
    if let Some(d) = document {
        row.message_type = Some(d.message_type.as_str().to_owned());
        row.message_version = Some(d.version.clone());
        row.message_id = Some(d.message_id.clone());
    }
    match decided {
        Decided::Failed(why, _) => row.reason = Some(why.clone()),
        Decided::Read(d, outcome) => {
            let accounts = d
                .statements
                .iter()
                .filter_map(|s| {
                    s.account
                        .iban
                        .clone()
                        .or_else(|| s.account.other_id.clone())
                })
                .collect();
            row.entry_count = count(outcome.entry_count);
            row.transaction_count = count(outcome.transaction_count);
            row.totals = json_text(&TotalsColumn {
                totals: outcome.totals.clone(),
                accounts,
            })?;
            if let Some(first) =
                reports::processed_before(tx, &blueprint.account_uuid, &d.message_id, sha)?
            {
                row.status = ReportStatus::Duplicate.as_str().to_owned();
                row.duplicate_of = Some(first);
            } else {
                row.status = ReportStatus::Processed.as_str().to_owned();
                row.matched = json_text(&outcome.matched)?;
                row.created_items = json_text(&outcome.created)?;
                row.unmatched = json_text(&outcome.unmatched)?;
                row.notes = json_text(&outcome.notes)?;
                events.extend(applied(tx, outbox, blueprint, &report_uuid, outcome)?);
            }
        }
    }
    reports::insert(tx, &row)?;
    if let Some(file) = &arrived.file_uuid
        && !files::mark_done(tx, file, &report_uuid)?
    {
        return Err(WriteError::Raced);
    }
    let report = Report::from_row(row.clone(), false)
        .map_err(|e| DieselError::SerializationError(e.into()))?;
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
) -> Result<Vec<OutboxEvent>, WriteError> {
    let (organisation, account) = (
        blueprint.organisation_uuid.parse().ok(),
        blueprint.account_uuid.parse().ok(),
    );
    let mut events = Vec::new();
    for m in &outcome.matched {
        if !payouts::mark_matched(tx, &m.payout_uuid, report)? {
            return Err(WriteError::Raced);
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
