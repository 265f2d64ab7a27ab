//! Connector accounts' rows and their change log. The secret columns hold sealed values
//! only (the command seals them); nothing here reads them back for an answer.

use coffer_secrets::Secrets;
use coffer_store::resealing::{self, Batch, Fate, Found, SealedTable, Unopened};
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
    /// Public by design (the payment page hands it to the provider's script): kept plain.
    pub publishable_key: Option<String>,
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

pub fn find_by_uuid(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<ConnectorAccountRow>> {
    db_run!(db: {
        a::connector_accounts
            .find(uuid)
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

/// What a column's value is sealed for: its column and its row, so a value copied to
/// another column or row does not open there.
pub fn context(column: &str, uuid: &str) -> String {
    format!("payments.connector_account.{column}:{uuid}")
}

/// Connector accounts' sealed columns, as the start-up pass goes through them
/// ([`coffer_store::resealing`]): each value sealed under a master key that is no longer
/// current is sealed again.
pub struct SealedKeys;

/// A connector account's sealed columns, as stored.
pub struct Stored {
    secret_key: String,
    webhook_secret: Option<String>,
    previous_webhook_secret: Option<String>,
}

impl SealedTable for SealedKeys {
    const TABLE: &'static str = "connector_accounts";
    type Key = String;
    type Values = Stored;

    fn stale(db: &mut Db<'_>, batch: &Batch<'_, String>) -> QueryResult<Found<Self>> {
        let current = batch.current;
        let rows: Vec<(String, String, Option<String>, Option<String>)> = db_run!(db: {
            a::connector_accounts
                .filter(a::uuid.gt(batch.after))
                // A NULL column matches neither way, so it never makes its row stale.
                .filter(
                    a::secret_key.not_like(current).escape('\\').nullable()
                        .or(a::webhook_secret.not_like(current).escape('\\'))
                        .or(a::previous_webhook_secret.not_like(current).escape('\\')),
                )
                .order(a::uuid)
                .limit(batch.limit)
                .select((a::uuid, a::secret_key, a::webhook_secret, a::previous_webhook_secret))
                .load(db)
        })?;
        Ok(rows
            .into_iter()
            .map(
                |(uuid, secret_key, webhook_secret, previous_webhook_secret)| {
                    let stored = Stored {
                        secret_key,
                        webhook_secret,
                        previous_webhook_secret,
                    };
                    (uuid, stored)
                },
            )
            .collect())
    }

    fn plan(secrets: &Secrets, uuid: &String, was: &Stored) -> Result<Fate<Stored>, Unopened> {
        let again = |column: &'static str, value: Option<&String>| match value {
            Some(v) => resealing::column(secrets, column, &context(column, uuid), v),
            None => Ok(None),
        };
        let secret_key = again("secret_key", Some(&was.secret_key))?;
        let webhook_secret = again("webhook_secret", was.webhook_secret.as_ref())?;
        let previous = again(
            "previous_webhook_secret",
            was.previous_webhook_secret.as_ref(),
        )?;
        if secret_key.is_none() && webhook_secret.is_none() && previous.is_none() {
            return Ok(Fate::Keep);
        }
        Ok(Fate::Replace(Stored {
            secret_key: secret_key.unwrap_or_else(|| was.secret_key.clone()),
            webhook_secret: webhook_secret.or_else(|| was.webhook_secret.clone()),
            previous_webhook_secret: previous.or_else(|| was.previous_webhook_secret.clone()),
        }))
    }

    /// Only if the row holds all three as they were: a change meanwhile (by `coffer admin`,
    /// or a replica starting beside this one) sealed its values under its own current key.
    fn replace(db: &mut Db<'_>, uuid: &String, was: &Stored, now: &Stored) -> QueryResult<usize> {
        db_run!(db: {
            let mut q = diesel::update(a::connector_accounts.find(uuid))
                .set((
                    a::secret_key.eq(&now.secret_key),
                    a::webhook_secret.eq(&now.webhook_secret),
                    a::previous_webhook_secret.eq(&now.previous_webhook_secret),
                ))
                .into_boxed()
                .filter(a::secret_key.eq(&was.secret_key));
            q = match &was.webhook_secret {
                Some(v) => q.filter(a::webhook_secret.eq(v)),
                None => q.filter(a::webhook_secret.is_null()),
            };
            q = match &was.previous_webhook_secret {
                Some(v) => q.filter(a::previous_webhook_secret.eq(v)),
                None => q.filter(a::previous_webhook_secret.is_null()),
            };
            q.execute(db)
        })
    }
}
