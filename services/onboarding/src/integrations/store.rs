use coffer_store::{Db, db_run};
use diesel::prelude::*;
use serde::Serialize;

use super::domain::IntegrationStatus;
use crate::schema::partner_integrations_made::dsl as i;

#[derive(
    Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, Serialize, utoipa::ToSchema,
)]
#[diesel(table_name = crate::schema::partner_integrations_made)]
pub struct IntegrationRow {
    pub uuid: String,
    pub partner_uuid: String,
    pub organisation_uuid: String,
    /// The onboarding configuration of the process that made it.
    pub configuration_uuid: String,
    pub process_uuid: String,
    /// `enabled` or `disabled`.
    // Described as the plain string it has always been, so the API description is unchanged.
    #[schema(value_type = String)]
    pub status: IntegrationStatus,
    pub created: i64,
    pub updated: i64,
}

pub fn insert(conn: &mut Db<'_>, row: &IntegrationRow) -> QueryResult<()> {
    db_run!(conn: { diesel::insert_into(i::partner_integrations_made).values(row).execute(conn).map(drop) })
}

pub fn find(conn: &mut Db<'_>, uuid: &str) -> QueryResult<Option<IntegrationRow>> {
    db_run!(conn: { i::partner_integrations_made.find(uuid).select(IntegrationRow::as_select()).first(conn).optional() })
}

/// Filters of a list; `None` is no filter.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub partner: Option<String>,
    pub organisations: Option<Vec<String>>,
    pub configuration: Option<String>,
}

pub fn list(conn: &mut Db<'_>, f: &Filter, limit: i64) -> QueryResult<Vec<IntegrationRow>> {
    db_run!(conn: {
        let mut q = i::partner_integrations_made.into_boxed();
        if let Some(p) = &f.partner {
            q = q.filter(i::partner_uuid.eq(p));
        }
        if let Some(o) = &f.organisations {
            q = q.filter(i::organisation_uuid.eq_any(o));
        }
        if let Some(c) = &f.configuration {
            q = q.filter(i::configuration_uuid.eq(c));
        }
        q.order((i::created.asc(), i::uuid.asc())).limit(limit).select(IntegrationRow::as_select()).load(conn)
    })
}

/// Disables an enabled integration; false when it was not enabled.
pub fn disable(conn: &mut Db<'_>, uuid: &str, now: i64) -> QueryResult<bool> {
    let changed = db_run!(conn: {
        diesel::update(i::partner_integrations_made.find(uuid).filter(i::status.eq(IntegrationStatus::Enabled)))
            .set((i::status.eq(IntegrationStatus::Disabled), i::updated.eq(now)))
            .execute(conn)
    })?;
    Ok(changed == 1)
}

/// The enabled integration of `partner` with `organisation`, if there is one.
pub fn enabled_between(
    conn: &mut Db<'_>,
    partner: &str,
    organisation: &str,
) -> QueryResult<Option<IntegrationRow>> {
    db_run!(conn: {
        i::partner_integrations_made
            .filter(i::partner_uuid.eq(partner).and(i::organisation_uuid.eq(organisation)).and(i::status.eq(IntegrationStatus::Enabled)))
            .select(IntegrationRow::as_select())
            .first(conn)
            .optional()
    })
}
