//! The files received, each once.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::domain::FileStatus;
use crate::schema::files::dsl as f;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::files)]
pub struct Row {
    pub uuid: String,
    pub source_uuid: Option<String>,
    pub blueprint_uuid: String,
    /// Where the file is: its key in the object store, or `sftp:<source>/<name>`.
    pub object_key: String,
    /// Which file under that key: when the store wrote it (empty where the key alone
    /// names it).
    pub object_version: String,
    pub name: String,
    pub size: i64,
    pub status: FileStatus,
    pub report_uuid: Option<String>,
    pub received: i64,
    pub attempts: i32,
    pub next_attempt: i64,
}

/// Records a file found at its place; false when that place was seen before, so a file
/// listed again is never read twice.
pub fn receive(db: &mut Db<'_>, row: &Row) -> QueryResult<bool> {
    let added = db_run!(db: {
        diesel::insert_into(f::files).values(row).on_conflict((f::object_key, f::object_version)).do_nothing().execute(db)
    })?;
    Ok(added == 1)
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Row>> {
    db_run!(db: { f::files.find(uuid).select(Row::as_select()).first(db).optional() })
}

/// What was received before under `keys`: each key's versions with their status.
pub fn known(db: &mut Db<'_>, keys: &[String]) -> QueryResult<Vec<(String, String, FileStatus)>> {
    db_run!(db: {
        f::files
            .filter(f::object_key.eq_any(keys))
            .select((f::object_key, f::object_version, f::status))
            .load(db)
    })
}

/// Files waiting to be read whose next attempt is due, oldest first, leaving out the
/// files in `skip_files` and those of the organisations in `skip_organisations` (being
/// read already: each reads one file at a time).
pub fn due(
    db: &mut Db<'_>,
    now: i64,
    limit: i64,
    skip_files: &[String],
    skip_organisations: &[String],
) -> QueryResult<Vec<Row>> {
    use crate::schema::blueprints::dsl as b;
    db_run!(db: {
        // Uploads only: an SFTP source's files are read by its poll, which fetches them.
        f::files
            .filter(f::object_key.like("sources/%"))
            .filter(f::status.eq(FileStatus::Waiting))
            .filter(f::next_attempt.le(now))
            .filter(f::uuid.ne_all(skip_files))
            .filter(f::blueprint_uuid.ne_all(
                b::blueprints.filter(b::organisation_uuid.eq_any(skip_organisations)).select(b::uuid),
            ))
            .order((f::received.asc(), f::uuid.asc()))
            .limit(limit)
            .select(Row::as_select())
            .load(db)
    })
}

/// The rows of `source`'s files still waiting to be read, as (uuid, place, version).
pub fn waiting_of_source(
    db: &mut Db<'_>,
    source: &str,
) -> QueryResult<Vec<(String, String, String)>> {
    db_run!(db: {
        f::files
            .filter(f::source_uuid.eq(source))
            .filter(f::status.eq(FileStatus::Waiting))
            .order(f::uuid.asc())
            .select((f::uuid, f::object_key, f::object_version))
            .load(db)
    })
}

/// Deletes the rows among `uuids` that still wait; a row read meanwhile stays, as it is
/// what keeps its file from being read twice. Answers how many went.
pub fn forget_waiting(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<usize> {
    if uuids.is_empty() {
        return Ok(0);
    }
    db_run!(db: {
        diesel::delete(f::files.filter(f::uuid.eq_any(uuids)).filter(f::status.eq(FileStatus::Waiting))).execute(db)
    })
}

/// Marks the file read, with its report; false when it was marked before (the caller's
/// transaction then rolls back, so no second report exists).
pub fn mark_done(db: &mut Db<'_>, uuid: &str, report: &str) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(f::files.filter(f::uuid.eq(uuid)).filter(f::status.eq(FileStatus::Waiting)))
            .set((f::status.eq(FileStatus::Done), f::report_uuid.eq(Some(report))))
            .execute(db)
    })?;
    Ok(changed == 1)
}

/// A read that could not finish (the store unreachable, say) is tried again later.
pub fn postpone(db: &mut Db<'_>, uuid: &str, next_attempt: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(f::files.find(uuid))
            .set((f::attempts.eq(f::attempts + 1), f::next_attempt.eq(next_attempt)))
            .execute(db)
            .map(drop)
    })
}
