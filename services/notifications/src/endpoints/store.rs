//! Webhook endpoints in the database. The password and signing keys are sealed here with
//! the service's master keys, each bound to its endpoint and field, so a sealed value
//! copied to another row or column does not open.

use std::hash::Hasher;

use coffer_secrets::Secrets;
use coffer_store::resealing::{self, Batch, Fate, Found, SealedTable, Unopened};
use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::Endpoint;
use crate::schema::webhook_endpoints::dsl as w;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = crate::schema::webhook_endpoints, treat_none_as_null = true)]
struct Row {
    uuid: String,
    organisation_uuid: String,
    account_uuid: Option<String>,
    alias: Option<String>,
    endpoint: String,
    username: Option<String>,
    password_sealed: Option<String>,
    hmac_key_sealed: String,
    previous_hmac_key_sealed: Option<String>,
    previous_hmac_key_until: Option<i64>,
    enabled: bool,
    disabled_reason: Option<String>,
    created: i64,
    updated: i64,
}

fn context(uuid: &str, field: &str) -> String {
    format!("webhook_endpoints/{uuid}/{field}")
}

fn seal(secrets: &Secrets, uuid: &str, field: &str, text: &str) -> QueryResult<String> {
    secrets
        .seal(&context(uuid, field), text.as_bytes())
        .map_err(|e| DieselError::SerializationError(Box::new(e)))
}

fn open(secrets: &Secrets, uuid: &str, field: &str, sealed: &str) -> QueryResult<String> {
    let bytes = secrets
        .open(&context(uuid, field), sealed)
        .map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
    String::from_utf8(bytes.to_vec()).map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

impl Row {
    fn of(e: &Endpoint, secrets: &Secrets, updated: i64) -> QueryResult<Self> {
        let id = e.uuid.as_str();
        Ok(Row {
            uuid: e.uuid.clone(),
            organisation_uuid: e.organisation_uuid.clone(),
            account_uuid: e.account_uuid.clone(),
            alias: e.alias.clone(),
            endpoint: e.endpoint.clone(),
            username: e.username.clone(),
            password_sealed: e
                .password
                .as_deref()
                .map(|p| seal(secrets, id, "password", p))
                .transpose()?,
            hmac_key_sealed: seal(secrets, id, "hmac_key", &e.hmac_key)?,
            previous_hmac_key_sealed: e
                .previous_hmac_key
                .as_ref()
                .map(|(k, _)| seal(secrets, id, "previous_hmac_key", k))
                .transpose()?,
            previous_hmac_key_until: e.previous_hmac_key.as_ref().map(|(_, until)| *until),
            enabled: e.enabled,
            disabled_reason: e.disabled_reason.clone(),
            created: e.created,
            updated,
        })
    }

    fn into_endpoint(self, secrets: &Secrets) -> QueryResult<Endpoint> {
        let id = self.uuid.as_str();
        let previous = match (&self.previous_hmac_key_sealed, self.previous_hmac_key_until) {
            (Some(sealed), Some(until)) => {
                Some((open(secrets, id, "previous_hmac_key", sealed)?, until))
            }
            _ => None,
        };
        Ok(Endpoint {
            password: self
                .password_sealed
                .as_deref()
                .map(|s| open(secrets, id, "password", s))
                .transpose()?,
            hmac_key: open(secrets, id, "hmac_key", &self.hmac_key_sealed)?,
            previous_hmac_key: previous,
            uuid: self.uuid,
            organisation_uuid: self.organisation_uuid,
            account_uuid: self.account_uuid,
            alias: self.alias,
            endpoint: self.endpoint,
            username: self.username,
            enabled: self.enabled,
            disabled_reason: self.disabled_reason,
            created: self.created,
        })
    }
}

pub fn insert(db: &mut Db<'_>, secrets: &Secrets, e: &Endpoint) -> QueryResult<()> {
    let row = Row::of(e, secrets, e.created)?;
    db_run!(db: { diesel::insert_into(w::webhook_endpoints).values(&row).execute(db).map(drop) })
}

pub fn update(db: &mut Db<'_>, secrets: &Secrets, e: &Endpoint, now: i64) -> QueryResult<()> {
    let row = Row::of(e, secrets, now)?;
    db_run!(db: { diesel::update(w::webhook_endpoints.find(&row.uuid)).set(&row).execute(db).map(drop) })
}

pub fn delete(db: &mut Db<'_>, uuid: &str) -> QueryResult<bool> {
    db_run!(db: { diesel::delete(w::webhook_endpoints.find(uuid)).execute(db).map(|n| n > 0) })
}

pub fn find(db: &mut Db<'_>, secrets: &Secrets, uuid: &str) -> QueryResult<Option<Endpoint>> {
    let row: Option<Row> = db_run!(db: {
        w::webhook_endpoints.find(uuid).select(Row::as_select()).first(db).optional()
    })?;
    row.map(|r| r.into_endpoint(secrets)).transpose()
}

/// Endpoints' sealed columns, as the start-up pass goes through them
/// ([`coffer_store::resealing`]): each value sealed under a master key that is no longer
/// current is sealed again.
pub struct SealedColumns;

/// An endpoint's sealed columns, as stored.
pub struct Stored {
    hmac_key: String,
    previous_hmac_key: Option<String>,
    password: Option<String>,
}

impl SealedTable for SealedColumns {
    const TABLE: &'static str = "webhook_endpoints";
    type Key = String;
    type Values = Stored;

    fn stale(db: &mut Db<'_>, batch: &Batch<'_, String>) -> QueryResult<Found<Self>> {
        let current = batch.current;
        let rows: Vec<(String, String, Option<String>, Option<String>)> = db_run!(db: {
            w::webhook_endpoints
                .filter(w::uuid.gt(batch.after))
                // A NULL column matches neither way, so it never makes its row stale.
                .filter(
                    w::hmac_key_sealed.not_like(current).escape('\\').nullable()
                        .or(w::previous_hmac_key_sealed.not_like(current).escape('\\'))
                        .or(w::password_sealed.not_like(current).escape('\\')),
                )
                .order(w::uuid)
                .limit(batch.limit)
                .select((w::uuid, w::hmac_key_sealed, w::previous_hmac_key_sealed, w::password_sealed))
                .load(db)
        })?;
        Ok(rows
            .into_iter()
            .map(|(uuid, hmac_key, previous_hmac_key, password)| {
                let stored = Stored {
                    hmac_key,
                    previous_hmac_key,
                    password,
                };
                (uuid, stored)
            })
            .collect())
    }

    fn plan(secrets: &Secrets, uuid: &String, was: &Stored) -> Result<Fate<Stored>, Unopened> {
        let again = |column, field, value: Option<&String>| match value {
            Some(v) => resealing::column(secrets, column, &context(uuid, field), v),
            None => Ok(None),
        };
        let hmac_key = again("hmac_key_sealed", "hmac_key", Some(&was.hmac_key))?;
        let previous_hmac_key = again(
            "previous_hmac_key_sealed",
            "previous_hmac_key",
            was.previous_hmac_key.as_ref(),
        )?;
        let password = again("password_sealed", "password", was.password.as_ref())?;
        if hmac_key.is_none() && previous_hmac_key.is_none() && password.is_none() {
            return Ok(Fate::Keep);
        }
        Ok(Fate::Replace(Stored {
            hmac_key: hmac_key.unwrap_or_else(|| was.hmac_key.clone()),
            previous_hmac_key: previous_hmac_key.or_else(|| was.previous_hmac_key.clone()),
            password: password.or_else(|| was.password.clone()),
        }))
    }

    /// Only if the row holds all three as they were: a change of the endpoint meanwhile (by
    /// a replica already serving) sealed its values under its own current key.
    fn replace(db: &mut Db<'_>, uuid: &String, was: &Stored, now: &Stored) -> QueryResult<usize> {
        db_run!(db: {
            let mut q = diesel::update(w::webhook_endpoints.find(uuid))
                .set((
                    w::hmac_key_sealed.eq(&now.hmac_key),
                    w::previous_hmac_key_sealed.eq(&now.previous_hmac_key),
                    w::password_sealed.eq(&now.password),
                ))
                .into_boxed()
                .filter(w::hmac_key_sealed.eq(&was.hmac_key));
            q = match &was.previous_hmac_key {
                Some(v) => q.filter(w::previous_hmac_key_sealed.eq(v)),
                None => q.filter(w::previous_hmac_key_sealed.is_null()),
            };
            q = match &was.password {
                Some(v) => q.filter(w::password_sealed.eq(v)),
                None => q.filter(w::password_sealed.is_null()),
            };
            q.execute(db)
        })
    }
}

/// Holds, until the transaction ends, the right to make an endpoint of `organisation`, so
/// that creates at once neither pass its bound together nor, with `prevent_duplicates`,
/// make two endpoints for one URL. On SQLite the write transaction is exclusive already.
pub fn lock_organisation(db: &mut Db<'_>, organisation: &str) -> QueryResult<()> {
    let Db::Pg(conn) = db else {
        return Ok(());
    };
    // FNV-1a as the advisory lock's 64-bit key; a collision only serialises two unrelated
    // creates.
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(format!("webhook_endpoints/{organisation}").as_bytes());
    let key = hasher.finish();
    diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
        .bind::<diesel::sql_types::BigInt, _>(i64::from_ne_bytes(key.to_ne_bytes()))
        .execute(*conn)
        .map(drop)
}

/// How many endpoints `organisation` has, on or off.
pub fn count_of(db: &mut Db<'_>, organisation: &str) -> QueryResult<u64> {
    let n: i64 = db_run!(db: {
        w::webhook_endpoints
            .filter(w::organisation_uuid.eq(organisation))
            .count()
            .get_result(db)
    })?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// An organisation's endpoint for `url`, the oldest when there are several.
pub fn find_by_url(
    db: &mut Db<'_>,
    secrets: &Secrets,
    organisation: &str,
    url: &str,
) -> QueryResult<Option<Endpoint>> {
    let row: Option<Row> = db_run!(db: {
        w::webhook_endpoints
            .filter(w::organisation_uuid.eq(organisation))
            .filter(w::endpoint.eq(url))
            .order((w::created.asc(), w::uuid.asc()))
            .select(Row::as_select())
            .first(db)
            .optional()
    })?;
    row.map(|r| r.into_endpoint(secrets)).transpose()
}

/// The endpoints of `organisations` (all for a platform caller), narrowed to one account,
/// oldest first: skipping `offset`, at most `limit` of them, or all when it is `None`.
pub fn list(
    db: &mut Db<'_>,
    secrets: &Secrets,
    organisations: Option<&[String]>,
    account: Option<&str>,
    offset: i64,
    limit: Option<i64>,
) -> QueryResult<Vec<Endpoint>> {
    let rows: Vec<Row> = db_run!(db: {
        let mut q = w::webhook_endpoints.select(Row::as_select()).into_boxed();
        if let Some(orgs) = organisations {
            q = q.filter(w::organisation_uuid.eq_any(orgs));
        }
        if let Some(account) = account {
            q = q.filter(w::account_uuid.eq(account));
        }
        if let Some(limit) = limit {
            q = q.limit(limit);
        }
        q.order((w::created.asc(), w::uuid.asc())).offset(offset).load(db)
    })?;
    rows.into_iter().map(|r| r.into_endpoint(secrets)).collect()
}

/// The organisation of an endpoint, when it exists.
pub fn organisation_of(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<String>> {
    db_run!(db: {
        w::webhook_endpoints.find(uuid).select(w::organisation_uuid).first(db).optional()
    })
}

/// Of `uuids`, the endpoints that are on.
pub fn enabled_among(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<String>> {
    db_run!(db: {
        w::webhook_endpoints
            .filter(w::uuid.eq_any(uuids))
            .filter(w::enabled.eq(true))
            .select(w::uuid)
            .load(db)
    })
}

/// Of `uuids`, the endpoints that exist, with since when every try to each has failed.
pub fn failing_since_many(
    db: &mut Db<'_>,
    uuids: &[String],
) -> QueryResult<Vec<(String, Option<i64>)>> {
    db_run!(db: {
        w::webhook_endpoints
            .filter(w::uuid.eq_any(uuids))
            .select((w::uuid, w::failing_since))
            .load(db)
    })
}

pub fn set_failing_since(db: &mut Db<'_>, uuid: &str, since: Option<i64>) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(w::webhook_endpoints.find(uuid))
            .set(w::failing_since.eq(since))
            .execute(db)
            .map(drop)
    })
}

/// Turns an endpoint off for `reason`; false when it was off (or gone) already. Its
/// failures are forgotten, so that turned on again it has five days anew.
pub fn disable(db: &mut Db<'_>, uuid: &str, reason: &str, now: i64) -> QueryResult<bool> {
    db_run!(db: {
        diesel::update(w::webhook_endpoints.find(uuid).filter(w::enabled.eq(true)))
            .set((
                w::enabled.eq(false),
                w::disabled_reason.eq(reason),
                w::failing_since.eq(None::<i64>),
                w::updated.eq(now),
            ))
            .execute(db)
            .map(|n| n > 0)
    })
}

/// Records the partner whose token made the endpoint.
pub fn set_partner(db: &mut Db<'_>, uuid: &str, partner: &str) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(w::webhook_endpoints.find(uuid))
            .set(w::partner_uuid.eq(partner))
            .execute(db)
            .map(drop)
    })
}

/// The enabled endpoints a partner made for an organisation.
pub fn enabled_of_partner(
    db: &mut Db<'_>,
    partner: &str,
    organisation: &str,
) -> QueryResult<Vec<String>> {
    db_run!(db: {
        w::webhook_endpoints
            .filter(w::partner_uuid.eq(partner).and(w::organisation_uuid.eq(organisation)).and(w::enabled.eq(true)))
            .select(w::uuid)
            .load(db)
    })
}
