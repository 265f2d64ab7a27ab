//! The disputes table.

use coffer_model::currency::Currency;
use coffer_model::money::Money;
use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::{CLOSED, Dispute};
use crate::schema::disputes::dsl as d;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::disputes)]
pub struct Row {
    pub connector_account_uuid: String,
    pub provider_dispute_id: String,
    pub uuid: String,
    pub payment_uuid: String,
    pub amount_value: i64,
    pub currency: String,
    pub reason: String,
    pub status: String,
    pub created: i64,
    pub provider_updated: i64,
}

impl Row {
    pub fn into_dispute(self) -> QueryResult<Dispute> {
        let currency = Currency::parse(&self.currency)
            .map_err(|e| DieselError::DeserializationError(e.to_string().into()))?;
        let amount = Money::new(self.amount_value, currency)
            .map_err(|e| DieselError::DeserializationError(e.to_string().into()))?;
        Ok(Dispute {
            uuid: self.uuid,
            payment_uuid: self.payment_uuid,
            amount,
            reason: self.reason,
            status: self.status,
            created: self.created,
            updated: self.provider_updated,
        })
    }
}

/// The dispute `id` of connector account `account`, as recorded.
pub fn find(db: &mut Db<'_>, account: &str, id: &str) -> QueryResult<Option<Row>> {
    db_run!(db: {
        d::disputes
            .find((account, id))
            .select(Row::as_select())
            .first(db)
            .optional()
    })
}

/// Records a dispute not known before; false when it is (another delivery got there).
pub fn insert_new(db: &mut Db<'_>, row: &Row) -> QueryResult<bool> {
    let inserted = db_run!(db: {
        diesel::insert_into(d::disputes)
            .values(row)
            .on_conflict_do_nothing()
            .execute(db)
    })?;
    Ok(inserted == 1)
}

/// What the provider now says of a known dispute, taken only while it is open, from a word
/// newer than the last one taken, and when it moves its status; false otherwise.
pub fn update_open(db: &mut Db<'_>, row: &Row) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(
            d::disputes
                .find((&row.connector_account_uuid, &row.provider_dispute_id))
                .filter(d::provider_updated.lt(row.provider_updated))
                .filter(d::status.ne_all(CLOSED))
                .filter(d::status.ne(&row.status)),
        )
        .set((
            d::amount_value.eq(row.amount_value),
            d::currency.eq(&row.currency),
            d::reason.eq(&row.reason),
            d::status.eq(&row.status),
            d::provider_updated.eq(row.provider_updated),
        ))
        .execute(db)
    })?;
    Ok(changed == 1)
}

/// A payment's disputes, oldest first (a payment has few).
pub fn of_payment(db: &mut Db<'_>, payment: &str) -> QueryResult<Vec<Dispute>> {
    let rows: Vec<Row> = db_run!(db: {
        d::disputes
            .filter(d::payment_uuid.eq(payment))
            .order((d::created.asc(), d::uuid.asc()))
            .limit(100)
            .select(Row::as_select())
            .load(db)
    })?;
    rows.into_iter().map(Row::into_dispute).collect()
}
