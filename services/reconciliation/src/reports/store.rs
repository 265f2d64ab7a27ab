//! Reports' queries.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::domain::ReportStatus;
use crate::lists::newest_first;
use crate::schema::reports::dsl as r;
use crate::tenancy::Owned;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::reports)]
pub struct Row {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub blueprint_uuid: String,
    pub source_uuid: Option<String>,
    pub file_name: String,
    pub file_sha256: String,
    pub message_type: Option<String>,
    pub message_version: Option<String>,
    pub message_id: Option<String>,
    pub status: ReportStatus,
    pub reason: Option<String>,
    pub duplicate_of: Option<String>,
    pub entry_count: i64,
    pub transaction_count: i64,
    pub totals: String,
    pub matched: String,
    pub created_items: String,
    pub unmatched: String,
    pub notes: String,
    pub created: i64,
}

impl Owned for Row {
    fn owner(&self) -> (&str, &str) {
        (&self.organisation_uuid, &self.account_uuid)
    }
}

pub fn insert(db: &mut Db<'_>, row: &Row) -> QueryResult<()> {
    db_run!(db: { diesel::insert_into(r::reports).values(row).execute(db).map(drop) })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Row>> {
    db_run!(db: { r::reports.find(uuid).select(Row::as_select()).first(db).optional() })
}

/// The account's processed report of the same file: the same message id, or the same
/// bytes. Two can match (one by each); the first of them, by a total order, so that every
/// duplicate names the same one.
pub fn processed_before(
    db: &mut Db<'_>,
    account: &str,
    message_id: &str,
    sha256: &str,
) -> QueryResult<Option<String>> {
    db_run!(db: {
        r::reports
            .filter(r::account_uuid.eq(account))
            .filter(r::status.eq(ReportStatus::Processed))
            .filter(r::message_id.eq(message_id).or(r::file_sha256.eq(sha256)))
            .order((r::created.asc(), r::uuid.asc()))
            .select(r::uuid)
            .first(db)
            .optional()
    })
}

/// Reports of one account, or of the organisations given (all when `None`), newest first.
pub fn list(
    db: &mut Db<'_>,
    account: Option<&str>,
    organisations: Option<&[String]>,
    offset: i64,
    limit: i64,
) -> QueryResult<Vec<Row>> {
    db_run!(db: {
        let mut q = r::reports.select(Row::as_select()).into_boxed();
        if let Some(account) = account {
            q = q.filter(r::account_uuid.eq(account));
        }
        if let Some(list) = organisations {
            q = q.filter(r::organisation_uuid.eq_any(list));
        }
        q.order(newest_first(r::created, r::uuid)).offset(offset).limit(limit).load(db)
    })
}
