use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::onboarding_processes::dsl as p;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::onboarding_processes)]
pub struct ProcessRow {
    pub uuid: String,
    pub configuration_uuid: String,
    pub partner_uuid: String,
    pub token: String,
    pub token_sha256: String,
    pub external_id: String,
    pub status: String,
    /// The create request as given (JSON).
    pub initialisation_data: String,
    /// The uuids an execution makes (JSON `Planned`), once chosen.
    pub planned: Option<String>,
    /// SPEC.md's `results` (JSON), once completed.
    pub results: Option<String>,
    pub partner_integration_uuid: Option<String>,
    pub expires_at: i64,
    pub created: i64,
    pub updated: i64,
}

pub fn insert(conn: &mut Db<'_>, row: &ProcessRow) -> QueryResult<()> {
    db_run!(conn: { diesel::insert_into(p::onboarding_processes).values(row).execute(conn).map(drop) })
}

pub fn find(conn: &mut Db<'_>, uuid: &str) -> QueryResult<Option<ProcessRow>> {
    db_run!(conn: { p::onboarding_processes.find(uuid).select(ProcessRow::as_select()).first(conn).optional() })
}

pub fn by_token(conn: &mut Db<'_>, digest: &str) -> QueryResult<Option<ProcessRow>> {
    db_run!(conn: {
        p::onboarding_processes.filter(p::token_sha256.eq(digest)).select(ProcessRow::as_select()).first(conn).optional()
    })
}

/// Keeps the plan of a pending process, unless one is kept already; the plan kept.
pub fn plan(conn: &mut Db<'_>, uuid: &str, planned: &str, now: i64) -> QueryResult<Option<String>> {
    db_run!(conn: {
        diesel::update(p::onboarding_processes.find(uuid).filter(p::planned.is_null()))
            .set((p::planned.eq(planned), p::updated.eq(now)))
            .execute(conn)?;
        p::onboarding_processes.find(uuid).select(p::planned).first(conn)
    })
}

/// Completes a pending process; false when it was not pending any more.
pub fn complete(
    conn: &mut Db<'_>,
    uuid: &str,
    results: &str,
    integration: &str,
    now: i64,
) -> QueryResult<bool> {
    let changed = db_run!(conn: {
        diesel::update(p::onboarding_processes.find(uuid).filter(p::status.eq("pending")))
            .set((
                p::status.eq("completed"),
                p::results.eq(results),
                p::partner_integration_uuid.eq(integration),
                p::updated.eq(now),
            ))
            .execute(conn)
    })?;
    Ok(changed == 1)
}
