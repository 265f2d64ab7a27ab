use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::Plan;
use crate::schema::subscription_plans::dsl as p;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = crate::schema::subscription_plans, treat_none_as_null = true)]
struct Row {
    uuid: String,
    organisation_uuid: String,
    account_uuid: Option<String>,
    name: String,
    is_default: bool,
    dunning_configuration: String,
    notification_configuration: String,
    created: i64,
    updated: i64,
    /// Kept beside the configuration for the scheduler's query (scheduler/store.rs).
    notify_before_charge_days: Option<i32>,
}

fn to_text<T: serde::Serialize>(value: &T) -> QueryResult<String> {
    serde_json::to_string(value).map_err(|e| DieselError::SerializationError(Box::new(e)))
}

fn from_text<T: serde::de::DeserializeOwned>(text: &str) -> QueryResult<T> {
    serde_json::from_str(text).map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

impl Row {
    fn of(plan: &Plan, updated: i64) -> QueryResult<Self> {
        Ok(Row {
            uuid: plan.uuid.clone(),
            organisation_uuid: plan.organisation_uuid.clone().unwrap_or_default(),
            account_uuid: plan.account_uuid.clone(),
            name: plan.name.clone(),
            is_default: plan.is_default,
            dunning_configuration: to_text(&plan.dunning_configuration)?,
            notification_configuration: to_text(&plan.notification_configuration)?,
            created: plan.created,
            updated,
            notify_before_charge_days: plan
                .notification_configuration
                .notify_before_charge_days
                .and_then(|d| i32::try_from(d).ok()),
        })
    }

    fn into_plan(self) -> QueryResult<Plan> {
        Ok(Plan {
            uuid: self.uuid,
            organisation_uuid: Some(self.organisation_uuid),
            account_uuid: self.account_uuid,
            name: self.name,
            is_default: self.is_default,
            dunning_configuration: from_text(&self.dunning_configuration)?,
            notification_configuration: from_text(&self.notification_configuration)?,
            created: self.created,
        })
    }
}

pub fn insert(db: &mut Db<'_>, plan: &Plan) -> QueryResult<()> {
    let row = Row::of(plan, plan.created)?;
    db_run!(db: { diesel::insert_into(p::subscription_plans).values(&row).execute(db).map(drop) })
}

pub fn update(db: &mut Db<'_>, plan: &Plan, now: i64) -> QueryResult<()> {
    let row = Row::of(plan, now)?;
    db_run!(db: { diesel::update(p::subscription_plans.find(&row.uuid)).set(&row).execute(db).map(drop) })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Plan>> {
    let row: Option<Row> = db_run!(db: {
        p::subscription_plans.find(uuid).select(Row::as_select()).first(db).optional()
    })?;
    row.map(Row::into_plan).transpose()
}

/// The plans of these organisations (all when `None`), oldest first.
pub fn list(db: &mut Db<'_>, organisations: Option<&[String]>) -> QueryResult<Vec<Plan>> {
    let rows: Vec<Row> = db_run!(db: {
        let mut q = p::subscription_plans.select(Row::as_select()).order((p::created, p::uuid)).into_boxed();
        if let Some(orgs) = organisations {
            q = q.filter(p::organisation_uuid.eq_any(orgs));
        }
        q.load(db)
    })?;
    rows.into_iter().map(Row::into_plan).collect()
}

/// Takes the default flag from every other plan of the same scope: the organisation's own
/// plans (no account), or the plans of one account.
pub fn clear_other_defaults(db: &mut Db<'_>, plan: &Plan) -> QueryResult<()> {
    let organisation = plan.organisation_uuid.clone().unwrap_or_default();
    let uuid = plan.uuid.clone();
    db_run!(db: {
        let scope = p::subscription_plans
            .filter(p::organisation_uuid.eq(&organisation))
            .filter(p::uuid.ne(&uuid))
            .filter(p::is_default.eq(true));
        match &plan.account_uuid {
            Some(account) => diesel::update(scope.filter(p::account_uuid.eq(account)))
                .set(p::is_default.eq(false))
                .execute(db),
            None => diesel::update(scope.filter(p::account_uuid.is_null()))
                .set(p::is_default.eq(false))
                .execute(db),
        }
        .map(drop)
    })
}

/// The plan a new subscription of `account` gets when it names none: the account's
/// default, else the organisation's; `None` means the global default.
pub fn default_for(
    db: &mut Db<'_>,
    organisation: &str,
    account: &str,
) -> QueryResult<Option<Plan>> {
    let rows: Vec<Row> = db_run!(db: {
        p::subscription_plans
            .filter(p::organisation_uuid.eq(organisation))
            .filter(p::is_default.eq(true))
            .filter(p::account_uuid.eq(account).or(p::account_uuid.is_null()))
            .select(Row::as_select())
            .load(db)
    })?;
    let mut plans = rows
        .into_iter()
        .map(Row::into_plan)
        .collect::<QueryResult<Vec<_>>>()?;
    // An account's own default comes first.
    plans.sort_by_key(|plan| plan.account_uuid.is_none());
    Ok(plans.into_iter().next())
}
