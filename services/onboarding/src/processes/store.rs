//! Processes in the database. A process's token is sealed here with the service's master
//! keys, bound to its process, so the column gives nothing away and a sealed value copied
//! to another row does not open; `token_sha256` finds a process by its token without
//! opening anything. Rows written before tokens were sealed hold the token in clear: they
//! read as they are, and the start seals them ([`Tokens`]).

use coffer_secrets::Secrets;
use coffer_store::resealing::{self, Batch, Fate, Found, SealedTable, Unopened};
use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::ProcessStatus;
use crate::schema::onboarding_processes::dsl as p;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::onboarding_processes)]
pub struct ProcessRow {
    pub uuid: String,
    pub configuration_uuid: String,
    pub partner_uuid: String,
    /// In clear: the functions here seal it on the way to the column and open it on the
    /// way back, and nothing else reads the column.
    pub token: String,
    pub token_sha256: String,
    pub external_id: String,
    pub status: ProcessStatus,
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

fn context(uuid: &str) -> String {
    format!("onboarding_processes/{uuid}/token")
}

pub fn seal_token(secrets: &Secrets, uuid: &str, token: &str) -> QueryResult<String> {
    secrets
        .seal(&context(uuid), token.as_bytes())
        .map_err(|e| DieselError::SerializationError(Box::new(e)))
}

/// The token a column holds: opened when sealed, as it is when written before sealing (a
/// token is base64url, so it never looks sealed).
pub fn open_token(secrets: &Secrets, uuid: &str, stored: &str) -> QueryResult<String> {
    if !coffer_secrets::is_sealed(stored) {
        return Ok(stored.to_owned());
    }
    let bytes = secrets
        .open(&context(uuid), stored)
        .map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
    String::from_utf8(bytes.to_vec()).map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

fn opened(secrets: &Secrets, row: Option<ProcessRow>) -> QueryResult<Option<ProcessRow>> {
    row.map(|mut row| {
        row.token = open_token(secrets, &row.uuid, &row.token)?;
        Ok(row)
    })
    .transpose()
}

pub fn insert(conn: &mut Db<'_>, secrets: &Secrets, row: &ProcessRow) -> QueryResult<()> {
    let stored = ProcessRow {
        token: seal_token(secrets, &row.uuid, &row.token)?,
        ..row.clone()
    };
    db_run!(conn: { diesel::insert_into(p::onboarding_processes).values(&stored).execute(conn).map(drop) })
}

pub fn find(conn: &mut Db<'_>, secrets: &Secrets, uuid: &str) -> QueryResult<Option<ProcessRow>> {
    let row = db_run!(conn: {
        p::onboarding_processes.find(uuid).select(ProcessRow::as_select()).first(conn).optional()
    })?;
    opened(secrets, row)
}

pub fn by_token(
    conn: &mut Db<'_>,
    secrets: &Secrets,
    digest: &str,
) -> QueryResult<Option<ProcessRow>> {
    let row = db_run!(conn: {
        p::onboarding_processes.filter(p::token_sha256.eq(digest)).select(ProcessRow::as_select()).first(conn).optional()
    })?;
    opened(secrets, row)
}

/// Processes' tokens, as the start-up pass goes through them ([`coffer_store::resealing`]):
/// a token in clear (a row from before sealing) is sealed, one sealed under a master key
/// that is no longer current is sealed again.
pub struct Tokens;

impl SealedTable for Tokens {
    const TABLE: &'static str = "onboarding_processes";
    type Key = String;
    type Values = String;

    fn stale(conn: &mut Db<'_>, batch: &Batch<'_, String>) -> QueryResult<Found<Self>> {
        db_run!(conn: {
            p::onboarding_processes
                .filter(p::uuid.gt(batch.after))
                .filter(p::token.not_like(batch.current).escape('\\'))
                .order(p::uuid)
                .limit(batch.limit)
                .select((p::uuid, p::token))
                .load(conn)
        })
    }

    /// A token in clear is sealed, not replaced: the partner has it already and has sent it
    /// to its person (docs/decisions/secrets.md).
    fn plan(secrets: &Secrets, uuid: &String, was: &String) -> Result<Fate<String>, Unopened> {
        if coffer_secrets::is_sealed(was) {
            return resealing::column(secrets, "token", &context(uuid), was).map(Fate::of);
        }
        let sealed = secrets
            .seal(&context(uuid), was.as_bytes())
            .map_err(|e| Unopened {
                column: "token",
                source: e.into(),
            })?;
        Ok(Fate::Replace(sealed))
    }

    fn replace(conn: &mut Db<'_>, uuid: &String, was: &String, now: &String) -> QueryResult<usize> {
        db_run!(conn: {
            diesel::update(p::onboarding_processes.find(uuid).filter(p::token.eq(was)))
                .set(p::token.eq(now))
                .execute(conn)
        })
    }
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
        diesel::update(p::onboarding_processes.find(uuid).filter(p::status.eq(ProcessStatus::Pending)))
            .set((
                p::status.eq(ProcessStatus::Completed),
                p::results.eq(results),
                p::partner_integration_uuid.eq(integration),
                p::updated.eq(now),
            ))
            .execute(conn)
    })?;
    Ok(changed == 1)
}
