//! A report as answered: the list form has the counts, the single form also the items.

use serde::Serialize;
use serde_json::Value;

use super::domain::ReportStatus;
use super::store::Row;
use crate::processing::outcome::Total;

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Report {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub blueprint_uuid: String,
    pub source_uuid: Option<String>,
    pub file_name: String,
    /// `camt.053` or `camt.054`, when the file could be read that far.
    pub message_type: Option<String>,
    /// Such as `camt.053.001.04`.
    pub message_version: Option<String>,
    /// The file's `GrpHdr/MsgId`.
    pub message_id: Option<String>,
    pub status: ReportStatus,
    /// Why the file failed.
    pub reason: Option<String>,
    /// The report of the first processing of the same file, for a duplicate.
    pub duplicate_of: Option<String>,
    /// The statements' (or notifications') accounts, as the file names them.
    pub accounts: Vec<String>,
    pub entry_count: i64,
    pub transaction_count: i64,
    /// Credits and debits per currency, exactly as the file's amounts add up.
    pub totals: Vec<Total>,
    pub matched_count: usize,
    pub created_count: usize,
    pub unmatched_count: usize,
    /// Batches whose parts do not add up, and other remarks.
    pub notes: Vec<String>,
    /// The items, in the single form only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub entries: Option<Value>,
    pub created: i64,
}

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// How many items a column's array holds, without building them: a report of a large
/// statement holds hundreds of thousands, and the list form only counts them.
fn count(text: &str) -> usize {
    serde_json::from_str::<Vec<serde::de::IgnoredAny>>(text).map_or(0, |items| items.len())
}

impl Report {
    /// The single form when `with_entries`, else the list form.
    pub fn from_row(row: Row, with_entries: bool) -> Result<Self, String> {
        let mut report = Self::listed(&row)?;
        if with_entries {
            report.entries = Some(serde_json::json!({
                "matched": parsed(&row.matched),
                "created": parsed(&row.created_items),
                "unmatched": parsed(&row.unmatched),
            }));
        }
        Ok(report)
    }

    /// The list form.
    pub fn listed(row: &Row) -> Result<Self, String> {
        let totals: TotalsColumn = serde_json::from_str(&row.totals).map_err(|e| e.to_string())?;
        let notes: Vec<String> = serde_json::from_str(&row.notes).map_err(|e| e.to_string())?;
        Ok(Report {
            matched_count: count(&row.matched),
            created_count: count(&row.created_items),
            unmatched_count: count(&row.unmatched),
            entries: None,
            uuid: row.uuid.clone(),
            organisation_uuid: row.organisation_uuid.clone(),
            account_uuid: row.account_uuid.clone(),
            blueprint_uuid: row.blueprint_uuid.clone(),
            source_uuid: row.source_uuid.clone(),
            file_name: row.file_name.clone(),
            message_type: row.message_type.clone(),
            message_version: row.message_version.clone(),
            message_id: row.message_id.clone(),
            status: row.status,
            reason: row.reason.clone(),
            duplicate_of: row.duplicate_of.clone(),
            accounts: totals.accounts,
            entry_count: row.entry_count,
            transaction_count: row.transaction_count,
            totals: totals.totals,
            notes,
            created: row.created,
        })
    }
}

/// The `totals` column: the totals and the accounts the file names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TotalsColumn {
    pub totals: Vec<Total>,
    pub accounts: Vec<String>,
}
