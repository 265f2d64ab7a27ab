//! Payouts' queries: what waits to be paid out, the payouts made, and their matching.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::domain::{Item, PAID_OUT_METHODS, PayoutStatus};
use crate::schema::payment_settlements::dsl as s;
use crate::schema::payments::dsl as p;
use crate::schema::payouts::dsl as o;
use crate::schema::refunds::dsl as r;
use crate::shared::connector::TEST_PROVIDER;
use crate::shared::record::{PaymentStatus, RefundStatus};

/// The most payments one payout takes; the rest wait for the next, so a settlement's
/// transaction stays short however busy the account was.
pub const MAX_PAYMENTS_PER_PAYOUT: i64 = 10_000;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::payouts)]
pub struct PayoutRow {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub currency: String,
    pub gross_value: i64,
    pub fees_value: i64,
    pub refunded_value: i64,
    pub amount_value: i64,
    pub payment_count: i64,
    pub reference: String,
    pub status: PayoutStatus,
    pub settlement_date: String,
    pub value_date: Option<String>,
    pub created: i64,
    pub updated: i64,
}

/// A succeeded payment no payout has taken yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub organisation_uuid: String,
    pub currency: String,
    pub item: Item,
}

/// Accounts with payments made before `before` that no payout has taken, leaving out
/// those paid out on `today` already (one payout a day, by the daily rule).
pub fn due_accounts(db: &mut Db<'_>, before: i64, today: &str) -> QueryResult<Vec<String>> {
    let paid_today = o::payouts
        .filter(o::settlement_date.eq(today.to_owned()))
        .select(o::account_uuid);
    db_run!(db: {
        p::payments
            .left_join(s::payment_settlements)
            .filter(p::status.eq(PaymentStatus::Succeeded))
            .filter(p::payment_provider.eq(TEST_PROVIDER))
            .filter(p::payment_method.eq_any(PAID_OUT_METHODS))
            .filter(p::created.lt(before))
            .filter(s::payout_uuid.is_null())
            .filter(p::account_uuid.ne_all(paid_today))
            .select(p::account_uuid)
            .distinct()
            .load(db)
    })
}

/// The account's payments made before `before` that no payout has taken, oldest first.
pub fn waiting_payments(db: &mut Db<'_>, account: &str, before: i64) -> QueryResult<Vec<Waiting>> {
    let rows: Vec<(String, String, String, i64)> = db_run!(db: {
        p::payments
            .left_join(s::payment_settlements)
            .filter(p::account_uuid.eq(account))
            .filter(p::status.eq(PaymentStatus::Succeeded))
            .filter(p::payment_provider.eq(TEST_PROVIDER))
            .filter(p::payment_method.eq_any(PAID_OUT_METHODS))
            .filter(p::created.lt(before))
            .filter(s::payout_uuid.is_null())
            .order((p::created.asc(), p::uuid.asc()))
            .limit(MAX_PAYMENTS_PER_PAYOUT)
            .select((p::uuid, p::organisation_uuid, p::currency, p::amount_value))
            .load(db)
    })?;
    Ok(rows
        .into_iter()
        .map(|(uuid, organisation_uuid, currency, value)| Waiting {
            organisation_uuid,
            currency,
            item: Item { uuid, value },
        })
        .collect())
}

/// Succeeded refunds of the account's paid-out payments in `currency` that no payout
/// has taken back yet.
pub fn waiting_refunds(db: &mut Db<'_>, account: &str, currency: &str) -> QueryResult<Vec<Item>> {
    let rows: Vec<(String, i64)> = db_run!(db: {
        r::refunds
            .inner_join(p::payments)
            .filter(p::account_uuid.eq(account))
            .filter(p::payment_provider.eq(TEST_PROVIDER))
            .filter(p::payment_method.eq_any(PAID_OUT_METHODS))
            .filter(r::currency.eq(currency))
            .filter(r::status.eq(RefundStatus::Succeeded))
            .filter(r::payout_uuid.is_null())
            .order((r::created.asc(), r::uuid.asc()))
            .select((r::uuid, r::amount_value))
            .load(db)
    })?;
    Ok(rows
        .into_iter()
        .map(|(uuid, value)| Item { uuid, value })
        .collect())
}

/// Records the payout and takes its payments and refunds; false when another settlement
/// took one of them first (the caller's transaction is then rolled back).
pub fn insert(
    db: &mut Db<'_>,
    payout: &PayoutRow,
    payments: &[(String, i64)],
    refunds: &[String],
) -> QueryResult<bool> {
    db_run!(db: { diesel::insert_into(o::payouts).values(payout).execute(db) })?;
    let rows: Vec<_> = payments
        .iter()
        .map(|(uuid, fee)| {
            (
                s::payment_uuid.eq(uuid),
                s::payout_uuid.eq(Some(&payout.uuid)),
                s::fee_value.eq(Some(*fee)),
            )
        })
        .collect();
    let mut taken = 0;
    // Chunks keep each statement within SQLite's bound on parameters.
    for chunk in rows.chunks(500) {
        taken += db_run!(db: {
            diesel::insert_into(s::payment_settlements)
                .values(chunk)
                .on_conflict_do_nothing()
                .execute(db)
        })?;
    }
    let mut taken_back = 0;
    for chunk in refunds.chunks(500) {
        taken_back += db_run!(db: {
            diesel::update(r::refunds.filter(r::uuid.eq_any(chunk)).filter(r::payout_uuid.is_null()))
                .set(r::payout_uuid.eq(Some(&payout.uuid)))
                .execute(db)
        })?;
    }
    Ok(taken == payments.len() && taken_back == refunds.len())
}

/// Payouts of one account, or of the organisations given (all when `None`), newest first.
pub fn list(
    db: &mut Db<'_>,
    account: Option<&str>,
    organisations: Option<&[String]>,
    offset: i64,
    limit: i64,
) -> QueryResult<Vec<PayoutRow>> {
    db_run!(db: {
        let mut q = o::payouts.select(PayoutRow::as_select()).into_boxed();
        if let Some(account) = account {
            q = q.filter(o::account_uuid.eq(account));
        }
        if let Some(list) = organisations {
            q = q.filter(o::organisation_uuid.eq_any(list));
        }
        q.order((o::created.desc(), o::uuid.desc())).offset(offset).limit(limit).load(db)
    })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<PayoutRow>> {
    db_run!(db: {
        o::payouts.find(uuid).select(PayoutRow::as_select()).first(db).optional()
    })
}

/// The payout's payments: uuid, amount, fee.
pub fn payments_of(db: &mut Db<'_>, payout: &str) -> QueryResult<Vec<(String, i64, i64)>> {
    let rows: Vec<(String, i64, Option<i64>)> = db_run!(db: {
        s::payment_settlements
            .inner_join(p::payments)
            .filter(s::payout_uuid.eq(payout))
            .order((p::created.asc(), p::uuid.asc()))
            .select((p::uuid, p::amount_value, s::fee_value))
            .load(db)
    })?;
    Ok(rows
        .into_iter()
        .map(|(uuid, value, fee)| (uuid, value, fee.unwrap_or(0)))
        .collect())
}

/// The refunds the payout took back: uuid, payment, amount.
pub fn refunds_of(db: &mut Db<'_>, payout: &str) -> QueryResult<Vec<(String, String, i64)>> {
    db_run!(db: {
        r::refunds
            .filter(r::payout_uuid.eq(payout))
            .order((r::created.asc(), r::uuid.asc()))
            .select((r::uuid, r::payment_uuid, r::amount_value))
            .load(db)
    })
}

/// Marks a pending payout matched on `value_date` and dates its payments; false when it
/// was matched already (a statement read twice, an event delivered twice).
pub fn mark_matched(db: &mut Db<'_>, uuid: &str, value_date: &str, now: i64) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(o::payouts.filter(o::uuid.eq(uuid)).filter(o::status.eq(PayoutStatus::Pending)))
            .set((o::status.eq(PayoutStatus::Matched), o::value_date.eq(Some(value_date)), o::updated.eq(now)))
            .execute(db)
    })?;
    if changed == 0 {
        return Ok(false);
    }
    db_run!(db: {
        diesel::update(s::payment_settlements.filter(s::payout_uuid.eq(uuid)))
            .set(s::value_date.eq(Some(value_date)))
            .execute(db)
    })?;
    Ok(true)
}

/// Names the Coffer payout `payout` made of the provider's payout `id` of connector account
/// `account`; false when one was made of it already.
pub fn claim_provider_payout(
    db: &mut Db<'_>,
    account: &str,
    id: &str,
    payout: &str,
) -> QueryResult<bool> {
    use diesel::sql_types::Text;
    let sql = match db.backend() {
        coffer_store::Backend::Postgres => {
            "INSERT INTO provider_payouts (connector_account_uuid, provider_payout_id, payout_uuid) \
             VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"
        }
        coffer_store::Backend::Sqlite => {
            "INSERT INTO provider_payouts (connector_account_uuid, provider_payout_id, payout_uuid) \
             VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING"
        }
    };
    let inserted = db_run!(db: {
        diesel::sql_query(sql)
            .bind::<Text, _>(account)
            .bind::<Text, _>(id)
            .bind::<Text, _>(payout)
            .execute(db)
    })?;
    Ok(inserted == 1)
}
