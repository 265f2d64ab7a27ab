//! The payment record as stored, read and written alike by every feature that holds a
//! payment (payments, refunds, direct debits, wire transfers, search): its row, the
//! payment read with its refunds and its settlement, recorded, and ended; a refund's
//! columns; and the dates a settlement records. Each feature's own queries stay in its
//! store.rs.

use coffer_model::currency::Currency;
use coffer_model::money::Money;
use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::method::PaymentMethod;
use super::record::{ChargeState, Payment, PaymentStatus, Refund, RefundStatus};
use crate::schema::payment_settlements::dsl as s;
use crate::schema::payments::dsl as p;
use crate::schema::refunds::dsl as r;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::payments)]
// An absent value is written as NULL (no column of an `Option` has another default), so
// that many rows go in one statement on SQLite too, also with ON CONFLICT.
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct Row {
    uuid: String,
    organisation_uuid: String,
    account_uuid: String,
    created: i64,
    updated: i64,
    test_mode: bool,
    payment_method: PaymentMethod,
    profile: String,
    payment_provider: String,
    provider_payment_id: Option<String>,
    status: PaymentStatus,
    status_reason: Option<String>,
    amount_value: i64,
    currency: String,
    refunded_amount: i64,
    supporter_uuid: Option<String>,
    supporter: Option<String>,
    payment_information: String,
    created_payment_source_uuid: Option<String>,
    subscription: Option<String>,
    subscription_uuid: Option<String>,
    custom_parameters: String,
    locale: Option<String>,
    return_url: Option<String>,
    action: Option<String>,
    cancel_reason: Option<String>,
    end_to_end_id: Option<String>,
    mandate_reference: Option<String>,
    charge_attempt_uuid: Option<String>,
    charge_state: ChargeState,
    charge_started: Option<i64>,
    payment_source_uuid: Option<String>,
}

/// A JSON column's text.
pub(crate) fn text(v: &serde_json::Value) -> String {
    v.to_string()
}

fn json(s: &str) -> QueryResult<serde_json::Value> {
    serde_json::from_str(s).map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

impl Row {
    pub(crate) fn from_payment(x: &Payment) -> Self {
        Row {
            uuid: x.uuid.clone(),
            organisation_uuid: x.organisation_uuid.clone(),
            account_uuid: x.account_uuid.clone(),
            created: x.created,
            updated: x.created,
            test_mode: x.test_mode,
            payment_method: x.payment_method,
            profile: x.profile.clone(),
            payment_provider: x.payment_provider.clone(),
            provider_payment_id: x.provider_payment_id.clone(),
            status: x.status,
            status_reason: x.status_reason.clone(),
            amount_value: x.amount.value,
            currency: x.amount.currency.code().to_owned(),
            refunded_amount: x.refunded_amount.value,
            supporter_uuid: x.supporter_uuid.clone(),
            supporter: x.supporter.as_ref().map(text),
            payment_information: text(&x.payment_information),
            created_payment_source_uuid: x.created_payment_source_uuid.clone(),
            subscription: x.subscription.as_ref().map(text),
            subscription_uuid: x.subscription_uuid.clone(),
            custom_parameters: text(&x.custom_parameters),
            locale: x.locale.clone(),
            return_url: x.return_url.clone(),
            action: x.action.as_ref().map(text),
            cancel_reason: x.cancel_reason.clone(),
            end_to_end_id: x.end_to_end_id.clone(),
            mandate_reference: x.mandate_reference.clone(),
            charge_attempt_uuid: x.charge_attempt_uuid.clone(),
            charge_state: x.charge_state,
            charge_started: (x.charge_state != ChargeState::Done).then_some(x.created),
            payment_source_uuid: x.payment_source_uuid.clone(),
        }
    }

    pub(crate) fn into_payment(self) -> QueryResult<Payment> {
        let currency = Currency::parse(&self.currency)
            .map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
        Ok(Payment {
            uuid: self.uuid,
            created: self.created,
            organisation_uuid: self.organisation_uuid,
            account_uuid: self.account_uuid,
            test_mode: self.test_mode,
            payment_method: self.payment_method,
            profile: self.profile,
            payment_provider: self.payment_provider,
            provider_payment_id: self.provider_payment_id,
            status: self.status,
            status_reason: self.status_reason,
            amount: Money {
                value: self.amount_value,
                currency,
            },
            refunded_amount: Money {
                value: self.refunded_amount,
                currency,
            },
            refunds: Vec::new(),
            payout_uuid: None,
            value_date: None,
            return_reason: None,
            supporter_uuid: self.supporter_uuid,
            supporter: self.supporter.as_deref().map(json).transpose()?,
            payment_information: json(&self.payment_information)?,
            created_payment_source_uuid: self.created_payment_source_uuid,
            subscription_uuid: self.subscription_uuid,
            subscription: self.subscription.as_deref().map(json).transpose()?,
            custom_parameters: json(&self.custom_parameters)?,
            locale: self.locale,
            return_url: self.return_url,
            action: self.action.as_deref().map(json).transpose()?,
            end_to_end_id: self.end_to_end_id,
            mandate_reference: self.mandate_reference,
            charge_attempt_uuid: self.charge_attempt_uuid,
            cancel_reason: self.cancel_reason,
            payment_source_uuid: self.payment_source_uuid,
            charge_state: self.charge_state,
        })
    }
}

pub fn insert(db: &mut Db<'_>, payment: &Payment) -> QueryResult<()> {
    let row = Row::from_payment(payment);
    db_run!(db: { diesel::insert_into(p::payments).values(&row).execute(db).map(drop) })
}

/// Payments recorded together, in one statement.
pub fn insert_all(db: &mut Db<'_>, payments: &[Payment]) -> QueryResult<()> {
    if payments.is_empty() {
        return Ok(());
    }
    let rows: Vec<Row> = payments.iter().map(Row::from_payment).collect();
    db_run!(db: { diesel::insert_into(p::payments).values(&rows).execute(db).map(drop) })
}

/// The uuid of `account`'s payment through `provider` whose provider payment (Stripe's
/// PaymentIntent) is `id`.
pub fn find_by_provider_payment_id(
    db: &mut Db<'_>,
    account: &str,
    provider: &str,
    id: &str,
) -> QueryResult<Option<String>> {
    db_run!(db: {
        p::payments
            .filter(p::provider_payment_id.eq(id))
            .filter(p::account_uuid.eq(account))
            .filter(p::payment_provider.eq(provider))
            .select(p::uuid)
            .first(db)
            .optional()
    })
}

/// A payment's row with its settlement and one of its refunds (a row per refund; most
/// have none, so one row).
type Joined = (Row, Option<Settlement>, Option<RefundRow>);

/// The payments `$filter` picks, joined with their settlements and refunds, ordered by
/// payment and then refund: one statement, written once for [`find`] and [`find_all`].
macro_rules! joined_payments {
    ($db:ident, $filter:expr) => {
        db_run!($db: {
            p::payments
                .left_join(s::payment_settlements)
                .left_join(r::refunds)
                .filter($filter)
                .order((p::uuid.asc(), r::created.asc(), r::uuid.asc()))
                .select((
                    Row::as_select(),
                    Option::<Settlement>::as_select(),
                    (r::uuid, r::payment_uuid, r::amount_value, r::currency, r::status, r::status_reason, r::created, r::charge_state).nullable(),
                ))
                .load::<Joined>($db)
        })
    };
}

/// The payment with its refunds and its settlement, in one statement: a read is one round
/// trip, and what it shows is one moment of the three tables. Its own statement, not
/// [`find_all`]'s with one uuid: SQLite keeps it prepared only with a fixed number of binds.
pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Payment>> {
    let rows = joined_payments!(db, p::uuid.eq(uuid))?;
    Ok(gathered(rows)?.pop().map(|(_, payment)| payment))
}

/// The payments of `uuids` that exist, each with its uuid, read as [`find`] reads one: the
/// statement of [`coffer_store::Lookups`], which answers reads that arrive together.
pub fn find_all(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<(String, Payment)>> {
    gathered(joined_payments!(db, p::uuid.eq_any(uuids))?)
}

/// Joined rows, ordered by payment, gathered into payments: a row of the payment before is
/// one more refund.
fn gathered(rows: Vec<Joined>) -> QueryResult<Vec<(String, Payment)>> {
    let mut found: Vec<(String, Payment)> = Vec::new();
    for (row, settled, refund) in rows {
        if found.last().is_none_or(|(uuid, _)| *uuid != row.uuid) {
            let mut payment = row.into_payment()?;
            if let Some(settled) = settled {
                payment.payout_uuid = settled.payout_uuid;
                payment.value_date = settled.value_date;
                payment.return_reason = settled.return_reason;
            }
            found.push((payment.uuid.clone(), payment));
        }
        if let (Some(refund), Some((_, payment))) = (refund, found.last_mut()) {
            let (_, refund, _) = refund_of(refund)?;
            payment.refunds.push(
                serde_json::to_value(refund)
                    .map_err(|e| DieselError::SerializationError(Box::new(e)))?,
            );
        }
    }
    Ok(found)
}

/// A refund as its columns are read.
pub(crate) type RefundRow = (
    String,
    String,
    i64,
    String,
    RefundStatus,
    Option<String>,
    i64,
    ChargeState,
);

pub(crate) fn refund_of(row: RefundRow) -> QueryResult<(String, Refund, ChargeState)> {
    let (uuid, payment, value, currency, status, status_reason, created, charge_state) = row;
    let currency =
        Currency::parse(&currency).map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
    let refund = Refund {
        uuid,
        amount: Money { value, currency },
        status,
        status_reason,
        created,
    };
    Ok((payment, refund, charge_state))
}

/// The payment's refunds, read with it.
pub fn refunds_of(db: &mut Db<'_>, payment: &str) -> QueryResult<Vec<Refund>> {
    let rows: Vec<RefundRow> = db_run!(db: {
        r::refunds
            .filter(r::payment_uuid.eq(payment))
            .order((r::created.asc(), r::uuid.asc()))
            .select((r::uuid, r::payment_uuid, r::amount_value, r::currency, r::status, r::status_reason, r::created, r::charge_state))
            .load(db)
    })?;
    rows.into_iter()
        .map(|row| refund_of(row).map(|(_, refund, _)| refund))
        .collect()
}

/// Ends a pending payment as `status` (succeeded or failed), with the reason for a failure.
pub fn complete(
    db: &mut Db<'_>,
    uuid: &str,
    status: PaymentStatus,
    reason: Option<&str>,
    now: i64,
) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(p::payments.filter(p::uuid.eq(uuid).and(p::status.eq(PaymentStatus::Pending))))
            .set((p::status.eq(status), p::status_reason.eq(reason), p::updated.eq(now), p::action.eq(None::<String>)))
            .execute(db)
    })?;
    Ok(changed == 1)
}

/// How a payment reached the bank, as far as it is known.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = crate::schema::payment_settlements)]
pub struct Settlement {
    pub payout_uuid: Option<String>,
    pub value_date: Option<String>,
    pub return_reason: Option<String>,
}

pub fn settlement_of(db: &mut Db<'_>, payment: &str) -> QueryResult<Option<Settlement>> {
    db_run!(db: {
        s::payment_settlements
            .find(payment)
            .select(Settlement::as_select())
            .first(db)
            .optional()
    })
}

/// Records why a direct debit came back (its ISO return code).
pub fn set_return_reason(db: &mut Db<'_>, payment: &str, reason: &str) -> QueryResult<()> {
    db_run!(db: {
        diesel::insert_into(s::payment_settlements)
            .values((s::payment_uuid.eq(payment), s::return_reason.eq(Some(reason))))
            .on_conflict(s::payment_uuid)
            .do_update()
            .set(s::return_reason.eq(Some(reason)))
            .execute(db)
            .map(drop)
    })
}

/// Dates a payment the bank credited without a payout (a direct debit): the row is made
/// or its value date set.
pub fn set_value_date(db: &mut Db<'_>, payment: &str, value_date: &str) -> QueryResult<()> {
    db_run!(db: {
        diesel::insert_into(s::payment_settlements)
            .values((s::payment_uuid.eq(payment), s::value_date.eq(Some(value_date))))
            .on_conflict(s::payment_uuid)
            .do_update()
            .set(s::value_date.eq(Some(value_date)))
            .execute(db)
            .map(drop)
    })
}
