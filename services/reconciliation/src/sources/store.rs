//! Sources' queries. An SFTP source's secret is stored sealed (coffer-secrets) and read
//! only by the poller.

use coffer_secrets::Secrets;
use coffer_store::resealing::{self, Batch, Fate, Found, SealedTable, Unopened};
use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use serde::Serialize;

use super::domain::{SourceKind, secret_context, upload_prefix};
use crate::lists::newest_first;
use crate::schema::sources::dsl as s;
use crate::tenancy::Owned;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::sources)]
pub struct Row {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub name: String,
    pub kind: String,
    pub blueprint_uuid: String,
    pub sftp_host: Option<String>,
    pub sftp_port: Option<i32>,
    pub sftp_username: Option<String>,
    pub sftp_secret: Option<String>,
    pub sftp_secret_kind: Option<String>,
    pub sftp_directory: Option<String>,
    pub sftp_poll_seconds: Option<i32>,
    pub sftp_host_key: Option<String>,
    pub polled: Option<i64>,
    pub poll_error: Option<String>,
    pub created: i64,
    pub updated: i64,
}

/// A source as answered: its SFTP secret is never shown, only which kind it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = ReconciliationSource)]
pub struct Source {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: SourceKind,
    pub blueprint_uuid: String,
    /// Where the source's files land in the bucket (`api_upload` and `bank_transfer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_prefix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sftp: Option<SftpView>,
    /// When the SFTP server was last polled, and why that failed if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub polled: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_error: Option<String>,
    pub created: i64,
    pub updated: i64,
}

impl Owned for Source {
    fn owner(&self) -> (&str, &str) {
        (&self.organisation_uuid, &self.account_uuid)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SftpView {
    pub host: String,
    pub port: i32,
    pub username: String,
    /// `password` or `private_key`: how Coffer signs in.
    pub auth: String,
    pub directory: String,
    pub poll_seconds: i32,
    pub host_key: String,
}

impl Row {
    pub fn into_source(self) -> QueryResult<Source> {
        let kind = SourceKind::parse(&self.kind).ok_or_else(|| {
            DieselError::DeserializationError(format!("source kind {}", self.kind).into())
        })?;
        let sftp = match (
            self.sftp_host,
            self.sftp_port,
            self.sftp_username,
            self.sftp_secret_kind,
            self.sftp_directory,
            self.sftp_poll_seconds,
            self.sftp_host_key,
        ) {
            (
                Some(host),
                Some(port),
                Some(username),
                Some(auth),
                Some(directory),
                Some(poll_seconds),
                Some(host_key),
            ) => Some(SftpView {
                host,
                port,
                username,
                auth,
                directory,
                poll_seconds,
                host_key,
            }),
            _ => None,
        };
        Ok(Source {
            key_prefix: (kind != SourceKind::Sftp).then(|| upload_prefix(&self.uuid)),
            uuid: self.uuid,
            organisation_uuid: self.organisation_uuid,
            account_uuid: self.account_uuid,
            name: self.name,
            kind,
            blueprint_uuid: self.blueprint_uuid,
            sftp,
            polled: self.polled,
            poll_error: self.poll_error,
            created: self.created,
            updated: self.updated,
        })
    }
}

pub fn insert(db: &mut Db<'_>, row: &Row) -> QueryResult<()> {
    db_run!(db: { diesel::insert_into(s::sources).values(row).execute(db).map(drop) })
}

pub fn find_row(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Row>> {
    db_run!(db: { s::sources.find(uuid).select(Row::as_select()).first(db).optional() })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Source>> {
    find_row(db, uuid)?.map(Row::into_source).transpose()
}

/// Sources of one account, or of the organisations given (all when `None`), newest first.
pub fn list(
    db: &mut Db<'_>,
    account: Option<&str>,
    organisations: Option<&[String]>,
    offset: i64,
    limit: i64,
) -> QueryResult<Vec<Source>> {
    let rows: Vec<Row> = db_run!(db: {
        let mut q = s::sources.select(Row::as_select()).into_boxed();
        if let Some(account) = account {
            q = q.filter(s::account_uuid.eq(account));
        }
        if let Some(list) = organisations {
            q = q.filter(s::organisation_uuid.eq_any(list));
        }
        q.order(newest_first(s::created, s::uuid)).offset(offset).limit(limit).load(db)
    })?;
    rows.into_iter().map(Row::into_source).collect()
}

/// SFTP sources' secrets, as the start-up pass goes through them
/// ([`coffer_store::resealing`]): each sealed under a master key that is no longer current
/// is sealed again.
pub struct SftpSecrets;

impl SealedTable for SftpSecrets {
    const TABLE: &'static str = "sources";
    type Key = String;
    type Values = String;

    fn stale(db: &mut Db<'_>, batch: &Batch<'_, String>) -> QueryResult<Found<Self>> {
        db_run!(db: {
            s::sources
                .filter(s::uuid.gt(batch.after))
                .filter(s::sftp_secret.not_like(batch.current).escape('\\'))
                .order(s::uuid)
                .limit(batch.limit)
                .select((s::uuid, s::sftp_secret.assume_not_null()))
                .load(db)
        })
    }

    fn plan(secrets: &Secrets, uuid: &String, was: &String) -> Result<Fate<String>, Unopened> {
        resealing::column(secrets, "sftp_secret", &secret_context(uuid), was).map(Fate::of)
    }

    fn replace(db: &mut Db<'_>, uuid: &String, was: &String, now: &String) -> QueryResult<usize> {
        db_run!(db: {
            diesel::update(s::sources.find(uuid).filter(s::sftp_secret.eq(was)))
                .set(s::sftp_secret.eq(now))
                .execute(db)
        })
    }
}

/// Sources of `kind`, for the workers that fetch their files.
pub fn of_kind(db: &mut Db<'_>, kind: SourceKind) -> QueryResult<Vec<Row>> {
    db_run!(db: {
        s::sources.filter(s::kind.eq(kind.as_str())).order(s::uuid.asc()).select(Row::as_select()).load(db)
    })
}

/// Takes a due poll of an SFTP source, stamping it `at`: true when `polled` was still
/// `seen`, so of several replicas that found the source due, only one polls it.
pub fn claim_poll(db: &mut Db<'_>, uuid: &str, seen: Option<i64>, at: i64) -> QueryResult<bool> {
    let changed = match seen {
        Some(before) => db_run!(db: {
            diesel::update(s::sources.filter(s::uuid.eq(uuid)).filter(s::polled.eq(before)))
                .set(s::polled.eq(Some(at)))
                .execute(db)
        })?,
        None => db_run!(db: {
            diesel::update(s::sources.filter(s::uuid.eq(uuid)).filter(s::polled.is_null()))
                .set(s::polled.eq(Some(at)))
                .execute(db)
        })?,
    };
    Ok(changed == 1)
}

/// Records a poll of an SFTP source and how it went.
pub fn record_poll(db: &mut Db<'_>, uuid: &str, at: i64, error: Option<&str>) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(s::sources.find(uuid))
            .set((s::polled.eq(Some(at)), s::poll_error.eq(error)))
            .execute(db)
            .map(drop)
    })
}
