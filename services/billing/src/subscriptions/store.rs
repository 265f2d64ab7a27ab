use chrono::NaiveDate;
use coffer_model::currency::Currency;
use coffer_model::zone;
use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::{Subscription, SubscriptionStatus};
use crate::schedule::Interval;
use crate::schema::subscriptions::dsl as s;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = crate::schema::subscriptions, treat_none_as_null = true)]
struct Row {
    uuid: String,
    organisation_uuid: String,
    account_uuid: String,
    supporter_uuid: Option<String>,
    plan_uuid: String,
    payment_source_uuid: String,
    payment_provider: String,
    payment_method: String,
    test_mode: bool,
    currency: String,
    amount: i64,
    timezone: String,
    recurring_interval: String,
    anchor_date: String,
    status: SubscriptionStatus,
    next_due_date: Option<i64>,
    planned_effective_from: Option<String>,
    planned_since: Option<i64>,
    planned_end: Option<String>,
    ended_at: Option<i64>,
    suspension_start: Option<String>,
    suspension_end: Option<String>,
    consecutive_failed_invoices: i32,
    custom_parameters: String,
    service_parameters: String,
    created: i64,
    updated: i64,
    test_clock_uuid: Option<String>,
}

fn broken(what: &str) -> DieselError {
    DieselError::DeserializationError(format!("stored {what} does not parse").into())
}

fn day(text: &str) -> QueryResult<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| broken("date"))
}

fn text(date: Option<NaiveDate>) -> Option<String> {
    date.map(|d| d.format("%Y-%m-%d").to_string())
}

impl Row {
    fn of(x: &Subscription, updated: i64) -> Self {
        Row {
            uuid: x.uuid.clone(),
            organisation_uuid: x.organisation_uuid.clone(),
            account_uuid: x.account_uuid.clone(),
            supporter_uuid: x.supporter_uuid.clone(),
            plan_uuid: x.plan_uuid.clone(),
            payment_source_uuid: x.payment_source_uuid.clone(),
            payment_provider: x.payment_provider.clone(),
            payment_method: x.payment_method.clone(),
            test_mode: x.test_mode,
            currency: x.currency.code().to_owned(),
            amount: x.amount,
            timezone: x.timezone.clone(),
            recurring_interval: x.recurring_interval.clone(),
            anchor_date: x.anchor_date.format("%Y-%m-%d").to_string(),
            status: x.status,
            next_due_date: x.next_due_date,
            planned_effective_from: text(x.planned_effective_from),
            planned_since: x.planned_since,
            planned_end: text(x.planned_end),
            ended_at: x.ended_at,
            suspension_start: text(x.suspension_start),
            suspension_end: text(x.suspension_end),
            consecutive_failed_invoices: x.consecutive_failed_invoices,
            custom_parameters: serde_json::Value::Object(x.custom_parameters.clone()).to_string(),
            service_parameters: x.service_parameters.to_string(),
            created: x.created,
            updated,
            test_clock_uuid: x.test_clock_uuid.clone(),
        }
    }

    fn into_subscription(self) -> QueryResult<Subscription> {
        let opt = |t: Option<String>| t.as_deref().map(day).transpose();
        Ok(Subscription {
            zone: zone::parse(&self.timezone).unwrap_or(zone::UTC),
            interval: Interval::parse(&self.recurring_interval).map_err(|_| broken("interval"))?,
            currency: Currency::parse(&self.currency).map_err(|_| broken("currency"))?,
            anchor_date: day(&self.anchor_date)?,
            planned_effective_from: opt(self.planned_effective_from)?,
            planned_end: opt(self.planned_end)?,
            suspension_start: opt(self.suspension_start)?,
            suspension_end: opt(self.suspension_end)?,
            custom_parameters: serde_json::from_str(&self.custom_parameters)
                .map_err(|e| DieselError::DeserializationError(Box::new(e)))?,
            service_parameters: serde_json::from_str(&self.service_parameters)
                .map_err(|e| DieselError::DeserializationError(Box::new(e)))?,
            uuid: self.uuid,
            organisation_uuid: self.organisation_uuid,
            account_uuid: self.account_uuid,
            supporter_uuid: self.supporter_uuid,
            plan_uuid: self.plan_uuid,
            payment_source_uuid: self.payment_source_uuid,
            payment_provider: self.payment_provider,
            payment_method: self.payment_method,
            test_mode: self.test_mode,
            amount: self.amount,
            timezone: self.timezone,
            recurring_interval: self.recurring_interval,
            status: self.status,
            next_due_date: self.next_due_date,
            planned_since: self.planned_since,
            ended_at: self.ended_at,
            consecutive_failed_invoices: self.consecutive_failed_invoices,
            created: self.created,
            test_clock_uuid: self.test_clock_uuid,
        })
    }
}

pub fn insert(db: &mut Db<'_>, x: &Subscription) -> QueryResult<()> {
    let row = Row::of(x, x.created);
    db_run!(db: { diesel::insert_into(s::subscriptions).values(&row).execute(db).map(drop) })
}

/// Writes `x` over the stored subscription, but only if it is still in `expected` status:
/// two transitions racing cannot both apply. False when the status had changed.
pub fn save(
    db: &mut Db<'_>,
    x: &Subscription,
    expected: SubscriptionStatus,
    now: i64,
) -> QueryResult<bool> {
    let row = Row::of(x, now);
    let changed = db_run!(db: {
        diesel::update(s::subscriptions.find(&row.uuid).filter(s::status.eq(expected)))
            .set(&row)
            .execute(db)
    })?;
    Ok(changed == 1)
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Subscription>> {
    let row: Option<Row> = db_run!(db: {
        s::subscriptions.find(uuid).select(Row::as_select()).first(db).optional()
    })?;
    row.map(Row::into_subscription).transpose()
}

/// The subscription, locked until the transaction ends on PostgreSQL, for a change made
/// from what it is now. (A SQLite write transaction holds the only write lock already.)
pub fn find_locked(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Subscription>> {
    let row: Option<Row> = match db {
        Db::Pg(conn) => s::subscriptions
            .find(uuid)
            .select(Row::as_select())
            .for_update()
            .first(*conn)
            .optional(),
        Db::Sqlite(conn) => s::subscriptions
            .find(uuid)
            .select(Row::as_select())
            .first(*conn)
            .optional(),
    }?;
    row.map(Row::into_subscription).transpose()
}

/// The subscription as answered, with its plan's current name.
pub fn rendered(db: &mut Db<'_>, x: &Subscription) -> QueryResult<serde_json::Value> {
    let name = if x.plan_uuid == crate::plans::domain::GLOBAL_UUID {
        crate::plans::domain::global().name
    } else {
        crate::plans::store::find(db, &x.plan_uuid)?
            .map(|p| p.name)
            .unwrap_or_default()
    };
    Ok(x.render(&name))
}

/// The subscriptions living on a test clock.
pub fn on_clock(db: &mut Db<'_>, clock: &str) -> QueryResult<Vec<Subscription>> {
    let rows: Vec<Row> = db_run!(db: {
        s::subscriptions.filter(s::test_clock_uuid.eq(clock)).select(Row::as_select()).load(db)
    })?;
    rows.into_iter().map(Row::into_subscription).collect()
}

/// The subscriptions of `uuids` that exist, in no particular order.
pub fn find_many(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<Subscription>> {
    let rows: Vec<Row> = db_run!(db: {
        s::subscriptions.filter(s::uuid.eq_any(uuids)).select(Row::as_select()).load(db)
    })?;
    rows.into_iter().map(Row::into_subscription).collect()
}

/// Sets the next charge date of many subscriptions: one statement on PostgreSQL (arrays
/// of uuids and dates), one per subscription on SQLite.
pub fn move_on(db: &mut Db<'_>, next: &[(String, i64)], now: i64) -> QueryResult<()> {
    use diesel::sql_types::{Array, BigInt, Text};
    if next.is_empty() {
        return Ok(());
    }
    match db {
        Db::Pg(conn) => {
            let (uuids, dates): (Vec<String>, Vec<i64>) = next.iter().cloned().unzip();
            diesel::sql_query(
                "UPDATE subscriptions SET next_due_date = v.next, updated = $3 \
                 FROM (SELECT unnest($1::text[]) AS uuid, unnest($2::bigint[]) AS next) AS v \
                 WHERE subscriptions.uuid = v.uuid",
            )
            .bind::<Array<Text>, _>(uuids)
            .bind::<Array<BigInt>, _>(dates)
            .bind::<BigInt, _>(now)
            .execute(&mut **conn)
            .map(drop)
        }
        Db::Sqlite(conn) => {
            for (uuid, date) in next {
                diesel::update(s::subscriptions.find(uuid))
                    .set((s::next_due_date.eq(date), s::updated.eq(now)))
                    .execute(&mut **conn)?;
            }
            Ok(())
        }
    }
}
