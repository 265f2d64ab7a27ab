//! Connector accounts' rows and their change log. The secret columns hold sealed values
//! only (the command seals them); nothing here reads them back for an answer.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::domain::{Change, Mode, Provider};
use crate::schema::connector_account_changes::dsl as c;
use crate::schema::connector_accounts::dsl as a;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = crate::schema::connector_accounts, treat_none_as_null = true)]
pub struct ConnectorAccountRow {
    pub uuid: String,
    pub account_uuid: String,
    pub name: String,
    pub provider: Provider,
    pub mode: Mode,
    /// Sealed (`payments.connector_account.secret_key:<uuid>`).
    pub secret_key: String,
    pub secret_key_hint: String,
    /// Sealed (`payments.connector_account.webhook_secret:<uuid>`), as is the one before.
    pub webhook_secret: Option<String>,
    pub previous_webhook_secret: Option<String>,
    pub created: i64,
    pub updated: i64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::connector_account_changes)]
pub struct ChangeRow {
    pub uuid: String,
    pub connector_account_uuid: String,
    pub account_uuid: String,
    pub change: Change,
    pub secret_key_hint: String,
    pub actor: String,
    pub at: i64,
}

pub fn find(
    db: &mut Db<'_>,
    account: &str,
    name: &str,
) -> QueryResult<Option<ConnectorAccountRow>> {
    db_run!(db: {
        a::connector_accounts
            .filter(a::account_uuid.eq(account))
            .filter(a::name.eq(name))
            .select(ConnectorAccountRow::as_select())
            .first(db)
            .optional()
    })
}

pub fn insert(db: &mut Db<'_>, row: &ConnectorAccountRow) -> QueryResult<()> {
    db_run!(db: { diesel::insert_into(a::connector_accounts).values(row).execute(db) })?;
    Ok(())
}

/// Writes `now` over the row if it still is as `was` was read (its `updated` and its key):
/// false when another change came first, whose keys this one must not overwrite.
pub fn update(
    db: &mut Db<'_>,
    was: &ConnectorAccountRow,
    now: &ConnectorAccountRow,
) -> QueryResult<bool> {
    let changed = db_run!(db: {
        let q = diesel::update(a::connector_accounts)
            .filter(a::uuid.eq(&was.uuid))
            .filter(a::updated.eq(was.updated))
            .filter(a::secret_key.eq(&was.secret_key))
            .into_boxed();
        let q = match &was.webhook_secret {
            Some(secret) => q.filter(a::webhook_secret.eq(secret)),
            None => q.filter(a::webhook_secret.is_null()),
        };
        q.set(now).execute(db)
    })?;
    Ok(changed == 1)
}

pub fn log(db: &mut Db<'_>, changes: &[ChangeRow]) -> QueryResult<()> {
    db_run!(db: { diesel::insert_into(c::connector_account_changes).values(changes).execute(db) })?;
    Ok(())
}

/// The change log of one connector account, oldest first.
pub fn changes(db: &mut Db<'_>, connector_account: &str) -> QueryResult<Vec<ChangeRow>> {
    db_run!(db: {
        c::connector_account_changes
            .filter(c::connector_account_uuid.eq(connector_account))
            .order((c::at.asc(), c::uuid.asc()))
            .select(ChangeRow::as_select())
            .load(db)
    })
}
