//! The copies' queries: payment sources and supporters as payments announced them.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::{payment_sources::dsl as ps, supporters::dsl as su};

/// Payments' text for a source that can be charged: the one status of its sources billing
/// reads (payments' own mapping is its `SourceStatus`, which billing does not import).
const ANNOUNCED_ACTIVE: &str = "active";

/// A payment source as billing needs it.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::payment_sources)]
pub struct KnownSource {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub test_mode: bool,
    pub payment_method: String,
    pub payment_provider: String,
    pub status: String,
}

impl KnownSource {
    /// Whether payments announced it active, the one status billing tells apart. The copy
    /// keeps payments' text as it came, whatever statuses payments has, so it stays text.
    pub fn is_active(&self) -> bool {
        self.status == ANNOUNCED_ACTIVE
    }
}

/// Whether the source is kept as announced after `at` (ms): events of one object may
/// arrive out of order on redelivery.
pub fn newer_source_kept(db: &mut Db<'_>, uuid: &str, at: i64) -> QueryResult<bool> {
    let known: Option<i64> = db_run!(db: {
        ps::payment_sources.find(uuid).select(ps::updated_ms).first(db).optional()
    })?;
    Ok(known.is_some_and(|k| k > at))
}

/// Keeps the source as announced at `at` (ms).
pub fn keep_source(db: &mut Db<'_>, source: &KnownSource, at: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::insert_into(ps::payment_sources)
            .values((source, ps::updated_ms.eq(at)))
            .on_conflict(ps::uuid)
            .do_update()
            .set((ps::status.eq(&source.status), ps::updated_ms.eq(at)))
            .execute(db)
            .map(drop)
    })
}

/// Keeps a supporter's organisation; a supporter never changes organisation.
pub fn keep_supporter(db: &mut Db<'_>, uuid: &str, organisation: &str, at: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::insert_into(su::supporters)
            .values((su::uuid.eq(uuid), su::organisation_uuid.eq(organisation), su::updated_ms.eq(at)))
            .on_conflict(su::uuid)
            .do_nothing()
            .execute(db)
            .map(drop)
    })
}

pub fn source(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<KnownSource>> {
    db_run!(db: {
        ps::payment_sources.find(uuid).select(KnownSource::as_select()).first(db).optional()
    })
}

/// The organisation of a supporter billing knows of.
pub fn supporter_organisation(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<String>> {
    db_run!(db: { su::supporters.find(uuid).select(su::organisation_uuid).first(db).optional() })
}
