//! The payouts copy's queries.

use coffer_store::{Db, db_run};
use diesel::prelude::*;
use time::Date;

use crate::processing::payouts::Payout;
use crate::schema::payouts::dsl as o;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::payouts)]
pub struct Row {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub amount_value: i64,
    pub currency: String,
    pub reference: String,
    pub settlement_date: String,
    pub matched_report_uuid: Option<String>,
}

/// Keeps a payout; a redelivered event changes nothing.
pub fn keep(db: &mut Db<'_>, row: &Row) -> QueryResult<()> {
    db_run!(db: {
        diesel::insert_into(o::payouts).values(row).on_conflict(o::uuid).do_nothing().execute(db).map(drop)
    })
}

/// The account's payouts for matching: every open one, and those made since `since` that a
/// statement matched already, so that a credit naming one of them is reported as such.
pub fn for_matching(db: &mut Db<'_>, account: &str, since: Date) -> QueryResult<Vec<Payout>> {
    let since = since.to_string();
    let rows: Vec<Row> = db_run!(db: {
        o::payouts
            .filter(o::account_uuid.eq(account))
            .filter(o::matched_report_uuid.is_null().or(o::settlement_date.ge(&since)))
            .order((o::settlement_date.asc(), o::uuid.asc()))
            .select(Row::as_select())
            .load(db)
    })?;
    let format = time::format_description::well_known::Iso8601::DATE;
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            let date = Date::parse(&r.settlement_date, &format).ok()?;
            Some(Payout {
                uuid: r.uuid,
                amount_value: r.amount_value,
                currency: r.currency,
                reference: r.reference,
                settlement_date: date,
                matched_report_uuid: r.matched_report_uuid,
            })
        })
        .collect())
}

/// Marks the payout matched by `report`; false when another report matched it first.
pub fn mark_matched(db: &mut Db<'_>, uuid: &str, report: &str) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(o::payouts.filter(o::uuid.eq(uuid)).filter(o::matched_report_uuid.is_null()))
            .set(o::matched_report_uuid.eq(Some(report)))
            .execute(db)
    })?;
    Ok(changed == 1)
}
