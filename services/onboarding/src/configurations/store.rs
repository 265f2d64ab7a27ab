use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::onboarding_configurations::dsl as c;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::onboarding_configurations)]
pub struct ConfigurationRow {
    pub uuid: String,
    pub partner_uuid: String,
    /// A JSON array of labels.
    pub account_labels: String,
    pub default_locale: String,
    pub created: i64,
}

pub fn insert(conn: &mut Db<'_>, row: &ConfigurationRow) -> QueryResult<()> {
    db_run!(conn: { diesel::insert_into(c::onboarding_configurations).values(row).execute(conn).map(drop) })
}

pub fn find(conn: &mut Db<'_>, uuid: &str) -> QueryResult<Option<ConfigurationRow>> {
    db_run!(conn: { c::onboarding_configurations.find(uuid).select(ConfigurationRow::as_select()).first(conn).optional() })
}
