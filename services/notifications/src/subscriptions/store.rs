//! Event subscriptions in the database.

use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::Subscription;
use crate::schema::event_subscriptions::dsl as s;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = crate::schema::event_subscriptions, treat_none_as_null = true)]
struct Row {
    uuid: String,
    organisation_uuid: String,
    account_uuid: Option<String>,
    action_configuration_uuid: String,
    event_name: String,
    event_key: String,
    filter: Option<String>,
    enabled: bool,
    created: i64,
    updated: i64,
}

impl Row {
    fn of(x: &Subscription, updated: i64) -> QueryResult<Self> {
        Ok(Row {
            uuid: x.uuid.clone(),
            organisation_uuid: x.organisation_uuid.clone(),
            account_uuid: x.account_uuid.clone(),
            action_configuration_uuid: x.action_configuration_uuid.clone(),
            event_name: x.event_name.clone(),
            event_key: x.event_key.clone(),
            filter: x
                .filter
                .as_ref()
                .map(serde_json::to_string)
                .transpose()
                .map_err(|e| DieselError::SerializationError(Box::new(e)))?,
            enabled: x.enabled,
            created: x.created,
            updated,
        })
    }

    fn into_subscription(self) -> QueryResult<Subscription> {
        Ok(Subscription {
            filter: self
                .filter
                .as_deref()
                .map(serde_json::from_str)
                .transpose()
                .map_err(|e| DieselError::DeserializationError(Box::new(e)))?,
            uuid: self.uuid,
            organisation_uuid: self.organisation_uuid,
            account_uuid: self.account_uuid,
            action_configuration_uuid: self.action_configuration_uuid,
            event_name: self.event_name,
            event_key: self.event_key,
            enabled: self.enabled,
            created: self.created,
        })
    }
}

/// How many subscriptions `organisation` has, on or off.
pub fn count_of(db: &mut Db<'_>, organisation: &str) -> QueryResult<u64> {
    let n: i64 = db_run!(db: {
        s::event_subscriptions
            .filter(s::organisation_uuid.eq(organisation))
            .count()
            .get_result(db)
    })?;
    Ok(u64::try_from(n).unwrap_or(0))
}

pub fn insert(db: &mut Db<'_>, x: &Subscription) -> QueryResult<()> {
    let row = Row::of(x, x.created)?;
    db_run!(db: { diesel::insert_into(s::event_subscriptions).values(&row).execute(db).map(drop) })
}

pub fn update(db: &mut Db<'_>, x: &Subscription, now: i64) -> QueryResult<()> {
    let row = Row::of(x, now)?;
    db_run!(db: { diesel::update(s::event_subscriptions.find(&row.uuid)).set(&row).execute(db).map(drop) })
}

pub fn delete(db: &mut Db<'_>, uuid: &str) -> QueryResult<bool> {
    db_run!(db: { diesel::delete(s::event_subscriptions.find(uuid)).execute(db).map(|n| n > 0) })
}

/// An endpoint's subscriptions go with it.
pub fn delete_of_endpoint(db: &mut Db<'_>, endpoint: &str) -> QueryResult<usize> {
    db_run!(db: {
        diesel::delete(s::event_subscriptions.filter(s::action_configuration_uuid.eq(endpoint))).execute(db)
    })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Subscription>> {
    let row: Option<Row> = db_run!(db: {
        s::event_subscriptions.find(uuid).select(Row::as_select()).first(db).optional()
    })?;
    row.map(Row::into_subscription).transpose()
}

/// What a list narrows to.
#[derive(Debug, Default)]
pub struct Scope {
    /// The caller's organisations; all for a platform caller.
    pub organisations: Option<Vec<String>>,
    pub account: Option<String>,
    pub endpoint: Option<String>,
}

/// Subscriptions in `scope`, oldest first, at most `limit`.
/// The subscriptions in `scope`, oldest first: skipping `offset`, at most `limit` of them,
/// or all when it is `None`.
pub fn list(
    db: &mut Db<'_>,
    scope: &Scope,
    offset: i64,
    limit: Option<i64>,
) -> QueryResult<Vec<Subscription>> {
    let rows: Vec<Row> = db_run!(db: {
        let mut q = s::event_subscriptions.select(Row::as_select()).into_boxed();
        if let Some(orgs) = &scope.organisations {
            q = q.filter(s::organisation_uuid.eq_any(orgs));
        }
        if let Some(account) = &scope.account {
            q = q.filter(s::account_uuid.eq(account));
        }
        if let Some(endpoint) = &scope.endpoint {
            q = q.filter(s::action_configuration_uuid.eq(endpoint));
        }
        q = q.order((s::created.asc(), s::uuid.asc())).offset(offset);
        if let Some(limit) = limit {
            q = q.limit(limit);
        }
        q.load(db)
    })?;
    rows.into_iter().map(Row::into_subscription).collect()
}

/// The enabled subscriptions of any of `organisations` to any of `event_keys`, in one
/// statement (the caller pairs them up).
pub fn matching_any(
    db: &mut Db<'_>,
    organisations: &[&str],
    event_keys: &[&str],
) -> QueryResult<Vec<Subscription>> {
    let rows: Vec<Row> = db_run!(db: {
        s::event_subscriptions
            .filter(s::organisation_uuid.eq_any(organisations))
            .filter(s::event_key.eq_any(event_keys))
            .filter(s::enabled.eq(true))
            .select(Row::as_select())
            .load(db)
    })?;
    rows.into_iter().map(Row::into_subscription).collect()
}
