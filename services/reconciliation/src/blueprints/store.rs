//! Blueprints' queries.

use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use serde::Serialize;

use super::domain::{MessageType, Processing};
use crate::lists::newest_first;
use crate::schema::blueprints::dsl as b;
use crate::tenancy::Owned;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::blueprints)]
struct Row {
    uuid: String,
    organisation_uuid: String,
    account_uuid: String,
    name: String,
    message_type: String,
    versions: String,
    ibans: String,
    processing: String,
    created: i64,
    updated: i64,
}

/// A blueprint as stored and answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Blueprint {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub name: String,
    pub message_type: MessageType,
    pub processing: Processing,
    /// The versions accepted; empty: every supported one.
    pub versions: Vec<String>,
    /// The account IBANs a file may report; empty: any.
    pub ibans: Vec<String>,
    pub created: i64,
    pub updated: i64,
}

impl Owned for Blueprint {
    fn owner(&self) -> (&str, &str) {
        (&self.organisation_uuid, &self.account_uuid)
    }
}

impl Blueprint {
    /// A new blueprint of `input`, made `now`.
    pub fn new(input: super::domain::BlueprintInput, now: i64) -> Self {
        Blueprint {
            uuid: uuid::Uuid::new_v4().to_string(),
            organisation_uuid: input.organisation_uuid.to_string(),
            account_uuid: input.account_uuid.to_string(),
            name: input.name,
            message_type: input.message_type,
            processing: input.processing,
            versions: input.versions,
            ibans: input.ibans,
            created: now,
            updated: now,
        }
    }
}

fn unreadable(what: impl std::fmt::Display) -> DieselError {
    DieselError::DeserializationError(what.to_string().into())
}

impl Row {
    fn of(x: &Blueprint) -> QueryResult<Self> {
        let list = |l: &Vec<String>| {
            serde_json::to_string(l).map_err(|e| DieselError::SerializationError(Box::new(e)))
        };
        Ok(Row {
            uuid: x.uuid.clone(),
            organisation_uuid: x.organisation_uuid.clone(),
            account_uuid: x.account_uuid.clone(),
            name: x.name.clone(),
            message_type: x.message_type.as_str().to_owned(),
            versions: list(&x.versions)?,
            ibans: list(&x.ibans)?,
            processing: x.processing.as_str().to_owned(),
            created: x.created,
            updated: x.updated,
        })
    }

    fn into_blueprint(self) -> QueryResult<Blueprint> {
        let list = |s: &str| serde_json::from_str::<Vec<String>>(s).map_err(unreadable);
        Ok(Blueprint {
            message_type: MessageType::parse(&self.message_type)
                .ok_or_else(|| unreadable(format!("message type {}", self.message_type)))?,
            processing: Processing::parse(&self.processing)
                .ok_or_else(|| unreadable(format!("processing {}", self.processing)))?,
            versions: list(&self.versions)?,
            ibans: list(&self.ibans)?,
            uuid: self.uuid,
            organisation_uuid: self.organisation_uuid,
            account_uuid: self.account_uuid,
            name: self.name,
            created: self.created,
            updated: self.updated,
        })
    }
}

pub fn insert(db: &mut Db<'_>, blueprint: &Blueprint) -> QueryResult<()> {
    let row = Row::of(blueprint)?;
    db_run!(db: { diesel::insert_into(b::blueprints).values(&row).execute(db).map(drop) })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Blueprint>> {
    let row: Option<Row> =
        db_run!(db: { b::blueprints.find(uuid).select(Row::as_select()).first(db).optional() })?;
    row.map(Row::into_blueprint).transpose()
}

/// Blueprints of one account, or of the organisations given (all when `None`), newest
/// first.
pub fn list(
    db: &mut Db<'_>,
    account: Option<&str>,
    organisations: Option<&[String]>,
    offset: i64,
    limit: i64,
) -> QueryResult<Vec<Blueprint>> {
    let rows: Vec<Row> = db_run!(db: {
        let mut q = b::blueprints.select(Row::as_select()).into_boxed();
        if let Some(account) = account {
            q = q.filter(b::account_uuid.eq(account));
        }
        if let Some(list) = organisations {
            q = q.filter(b::organisation_uuid.eq_any(list));
        }
        q.order(newest_first(b::created, b::uuid)).offset(offset).limit(limit).load(db)
    })?;
    rows.into_iter().map(Row::into_blueprint).collect()
}
