use std::collections::HashSet;

use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::{AttemptStatus, ChargeAttempt, Invoice, InvoiceReason, InvoiceStatus};
use crate::schema::{charge_attempts::dsl as a, invoices::dsl as i};

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = crate::schema::invoices, treat_none_as_null = true)]
// NULL rather than DEFAULT for a missing value, which SQLite needs in multi-row inserts.
#[diesel(treat_none_as_default_value = false)]
struct InvoiceRow {
    uuid: String,
    subscription_uuid: String,
    organisation_uuid: String,
    account_uuid: String,
    period_date: Option<String>,
    due_date: i64,
    status: InvoiceStatus,
    status_reason: InvoiceReason,
    amount: i64,
    refunded_amount: i64,
    currency: String,
    next_attempt_date: Option<i64>,
    failed_payment_attempts: i32,
    is_manually_created: bool,
    custom_parameters: String,
    service_parameters: String,
    created: i64,
    updated: i64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::charge_attempts, treat_none_as_default_value = false)]
struct AttemptRow {
    uuid: String,
    invoice_uuid: String,
    subscription_uuid: String,
    status: AttemptStatus,
    status_reason: Option<String>,
    payment_uuid: Option<String>,
    created: i64,
    updated: i64,
}

const OPEN: InvoiceStatus = InvoiceStatus::Open;
const PENDING: AttemptStatus = AttemptStatus::Pending;

fn json<T: serde::de::DeserializeOwned>(text: &str) -> QueryResult<T> {
    serde_json::from_str(text).map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

impl InvoiceRow {
    fn of(x: &Invoice, updated: i64) -> Self {
        InvoiceRow {
            uuid: x.uuid.clone(),
            subscription_uuid: x.subscription_uuid.clone(),
            organisation_uuid: x.organisation_uuid.clone(),
            account_uuid: x.account_uuid.clone(),
            period_date: x.period_date.clone(),
            due_date: x.due_date,
            status: x.status,
            status_reason: x.status_reason,
            amount: x.amount,
            refunded_amount: x.refunded_amount,
            currency: x.currency.clone(),
            next_attempt_date: x.next_attempt_date,
            failed_payment_attempts: x.failed_payment_attempts,
            is_manually_created: x.is_manually_created,
            custom_parameters: serde_json::Value::Object(x.custom_parameters.clone()).to_string(),
            service_parameters: x.service_parameters.to_string(),
            created: x.created,
            updated,
        }
    }

    fn into_invoice(self) -> QueryResult<Invoice> {
        Ok(Invoice {
            custom_parameters: json(&self.custom_parameters)?,
            service_parameters: json(&self.service_parameters)?,
            uuid: self.uuid,
            subscription_uuid: self.subscription_uuid,
            organisation_uuid: self.organisation_uuid,
            account_uuid: self.account_uuid,
            period_date: self.period_date,
            due_date: self.due_date,
            status: self.status,
            status_reason: self.status_reason,
            amount: self.amount,
            refunded_amount: self.refunded_amount,
            currency: self.currency,
            next_attempt_date: self.next_attempt_date,
            failed_payment_attempts: self.failed_payment_attempts,
            is_manually_created: self.is_manually_created,
            created: self.created,
        })
    }
}

impl AttemptRow {
    fn into_attempt(self) -> QueryResult<ChargeAttempt> {
        Ok(ChargeAttempt {
            uuid: self.uuid,
            invoice_uuid: self.invoice_uuid,
            subscription_uuid: self.subscription_uuid,
            status: self.status,
            status_reason: self.status_reason,
            payment_uuid: self.payment_uuid,
            created: self.created,
        })
    }
}

/// False when the subscription already has an invoice for that charge date.
pub fn insert_invoice(db: &mut Db<'_>, x: &Invoice) -> QueryResult<bool> {
    let row = InvoiceRow::of(x, x.created);
    let n = db_run!(db: {
        diesel::insert_into(i::invoices).values(&row).on_conflict_do_nothing().execute(db)
    })?;
    Ok(n == 1)
}

/// Inserts many invoices at once; gives the uuids of those made (an invoice for a charge
/// date that has one already is left out).
pub fn insert_invoices(db: &mut Db<'_>, xs: &[Invoice]) -> QueryResult<Vec<String>> {
    let rows: Vec<InvoiceRow> = xs.iter().map(|x| InvoiceRow::of(x, x.created)).collect();
    let mut made = Vec::with_capacity(rows.len());
    // Each statement stays well inside the bind parameter limits of both databases.
    for chunk in rows.chunks(500) {
        let uuids: Vec<String> = db_run!(db: {
            diesel::insert_into(i::invoices)
                .values(chunk)
                .on_conflict_do_nothing()
                .returning(i::uuid)
                .get_results(db)
        })?;
        made.extend(uuids);
    }
    Ok(made)
}

/// Writes `x` over the stored invoice if it is still `expected`; false otherwise.
pub fn save_invoice(
    db: &mut Db<'_>,
    x: &Invoice,
    expected: InvoiceStatus,
    now: i64,
) -> QueryResult<bool> {
    let row = InvoiceRow::of(x, now);
    let n = db_run!(db: {
        diesel::update(i::invoices.find(&row.uuid).filter(i::status.eq(expected))).set(&row).execute(db)
    })?;
    Ok(n == 1)
}

pub fn find_invoice(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Invoice>> {
    let row: Option<InvoiceRow> = db_run!(db: {
        i::invoices.find(uuid).select(InvoiceRow::as_select()).first(db).optional()
    })?;
    row.map(InvoiceRow::into_invoice).transpose()
}

/// The invoice, locked until the transaction ends on PostgreSQL (SQLite's write
/// transaction is exclusive already): for a change judged on what it is now.
pub fn find_invoice_locked(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Invoice>> {
    let row: Option<InvoiceRow> = match db {
        Db::Pg(conn) => i::invoices
            .find(uuid)
            .select(InvoiceRow::as_select())
            .for_update()
            .first(*conn)
            .optional(),
        Db::Sqlite(conn) => i::invoices
            .find(uuid)
            .select(InvoiceRow::as_select())
            .first(*conn)
            .optional(),
    }?;
    row.map(InvoiceRow::into_invoice).transpose()
}

/// The invoices among `uuids` that exist, locked as [`find_invoice_locked`] locks one,
/// taken in the order of their uuids so that two batches never wait on each other in a
/// circle.
pub fn find_invoices_locked(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<Invoice>> {
    let rows: Vec<InvoiceRow> = match db {
        Db::Pg(conn) => i::invoices
            .filter(i::uuid.eq_any(uuids))
            .order(i::uuid)
            .select(InvoiceRow::as_select())
            .for_update()
            .load(*conn),
        Db::Sqlite(conn) => i::invoices
            .filter(i::uuid.eq_any(uuids))
            .select(InvoiceRow::as_select())
            .load(*conn),
    }?;
    rows.into_iter().map(InvoiceRow::into_invoice).collect()
}

/// Marks the open invoices among `uuids` paid, in one statement; how many it marked.
pub fn mark_paid(db: &mut Db<'_>, uuids: &[String], now: i64) -> QueryResult<usize> {
    db_run!(db: {
        diesel::update(i::invoices.filter(i::uuid.eq_any(uuids)).filter(i::status.eq(OPEN)))
            .set((
                // As domain::state::pay leaves an invoice.
                i::status.eq(InvoiceStatus::Paid),
                i::status_reason.eq(InvoiceReason::Paid),
                i::next_attempt_date.eq(None::<i64>),
                i::updated.eq(now),
            ))
            .execute(db)
    })
}

pub fn invoices_of(db: &mut Db<'_>, subscription: &str) -> QueryResult<Vec<Invoice>> {
    let rows: Vec<InvoiceRow> = db_run!(db: {
        i::invoices
            .filter(i::subscription_uuid.eq(subscription))
            .order((i::due_date, i::created, i::uuid))
            .select(InvoiceRow::as_select())
            .load(db)
    })?;
    rows.into_iter().map(InvoiceRow::into_invoice).collect()
}

/// Open invoices whose next try is due, oldest first.
pub fn due_retries(db: &mut Db<'_>, now: i64, limit: i64) -> QueryResult<Vec<String>> {
    db_run!(db: {
        i::invoices
            .filter(i::status.eq(OPEN))
            .filter(i::next_attempt_date.le(now))
            .order(i::next_attempt_date)
            .limit(limit)
            .select(i::uuid)
            .load(db)
    })
}

impl AttemptRow {
    /// The row of a new attempt.
    fn of(x: &ChargeAttempt) -> Self {
        AttemptRow {
            uuid: x.uuid.clone(),
            invoice_uuid: x.invoice_uuid.clone(),
            subscription_uuid: x.subscription_uuid.clone(),
            status: x.status,
            status_reason: x.status_reason.clone(),
            payment_uuid: x.payment_uuid.clone(),
            created: x.created,
            updated: x.created,
        }
    }
}

/// False when the invoice already has a pending attempt (the partial unique index says so,
/// however many requests race).
pub fn insert_attempt(db: &mut Db<'_>, x: &ChargeAttempt) -> QueryResult<bool> {
    let row = AttemptRow::of(x);
    let n = db_run!(db: {
        diesel::insert_into(a::charge_attempts).values(&row).on_conflict_do_nothing().execute(db)
    })?;
    Ok(n == 1)
}

pub fn attempts_of(db: &mut Db<'_>, invoice: &str) -> QueryResult<Vec<ChargeAttempt>> {
    attempts_of_many(db, &[invoice.to_owned()])
}

/// The attempts of all of `invoices`, by invoice, each invoice's oldest first.
pub fn attempts_of_many(db: &mut Db<'_>, invoices: &[String]) -> QueryResult<Vec<ChargeAttempt>> {
    let rows: Vec<AttemptRow> = db_run!(db: {
        a::charge_attempts
            .filter(a::invoice_uuid.eq_any(invoices))
            .order((a::invoice_uuid, a::created, a::uuid))
            .select(AttemptRow::as_select())
            .load(db)
    })?;
    rows.into_iter().map(AttemptRow::into_attempt).collect()
}

/// The attempts among `uuids` that exist.
pub fn find_attempts(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<ChargeAttempt>> {
    let rows: Vec<AttemptRow> = db_run!(db: {
        a::charge_attempts.filter(a::uuid.eq_any(uuids)).select(AttemptRow::as_select()).load(db)
    })?;
    rows.into_iter().map(AttemptRow::into_attempt).collect()
}

pub fn find_attempt(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<ChargeAttempt>> {
    let row: Option<AttemptRow> = db_run!(db: {
        a::charge_attempts.find(uuid).select(AttemptRow::as_select()).first(db).optional()
    })?;
    row.map(AttemptRow::into_attempt).transpose()
}

/// Inserts many new attempts at once.
pub fn insert_attempts(db: &mut Db<'_>, xs: &[ChargeAttempt]) -> QueryResult<()> {
    let rows: Vec<AttemptRow> = xs.iter().map(AttemptRow::of).collect();
    for chunk in rows.chunks(1000) {
        db_run!(db: {
            diesel::insert_into(a::charge_attempts).values(chunk).on_conflict_do_nothing().execute(db)
        })?;
    }
    Ok(())
}

/// Ends a pending attempt; false when it had ended already (a redelivered result).
pub fn finish_attempt(
    db: &mut Db<'_>,
    uuid: &str,
    status: AttemptStatus,
    reason: Option<&str>,
    payment: &str,
    now: i64,
) -> QueryResult<bool> {
    let n = db_run!(db: {
        diesel::update(a::charge_attempts.find(uuid).filter(a::status.eq(PENDING)))
            .set((
                a::status.eq(status),
                a::status_reason.eq(reason),
                a::payment_uuid.eq(payment),
                a::updated.eq(now),
            ))
            .execute(db)
    })?;
    Ok(n == 1)
}

/// One attempt [`finish_attempts_succeeded`] ends: its uuid, the payment's status reason
/// and the payment.
pub struct Succeeded<'a> {
    pub attempt: &'a str,
    pub reason: Option<&'a str>,
    pub payment: &'a str,
}

/// Ends the pending attempts among `xs` as succeeded: one statement on PostgreSQL (arrays
/// of the three columns), one per attempt on SQLite. Returns the uuids it ended; one that
/// had ended already (a redelivered result) is left out.
pub fn finish_attempts_succeeded(
    db: &mut Db<'_>,
    xs: &[Succeeded<'_>],
    now: i64,
) -> QueryResult<HashSet<String>> {
    use diesel::sql_types::{Array, BigInt, Nullable, Text};
    #[derive(diesel::QueryableByName)]
    struct Ended {
        #[diesel(sql_type = Text)]
        uuid: String,
    }
    if xs.is_empty() {
        return Ok(HashSet::new());
    }
    match db {
        Db::Pg(conn) => {
            let ended: Vec<Ended> = diesel::sql_query(
                "UPDATE charge_attempts AS a SET status = $4, status_reason = v.reason, \
                     payment_uuid = v.payment, updated = $5 \
                 FROM (SELECT unnest($1::text[]) AS uuid, unnest($2::text[]) AS reason, \
                              unnest($3::text[]) AS payment) AS v \
                 WHERE a.uuid = v.uuid AND a.status = $6 RETURNING a.uuid",
            )
            .bind::<Array<Text>, _>(xs.iter().map(|x| x.attempt).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(xs.iter().map(|x| x.reason).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(xs.iter().map(|x| x.payment).collect::<Vec<_>>())
            .bind::<Text, _>(AttemptStatus::Succeeded)
            .bind::<BigInt, _>(now)
            .bind::<Text, _>(PENDING)
            .load(&mut **conn)?;
            Ok(ended.into_iter().map(|e| e.uuid).collect())
        }
        Db::Sqlite(_) => {
            let mut ended = HashSet::new();
            for x in xs {
                if finish_attempt(
                    db,
                    x.attempt,
                    AttemptStatus::Succeeded,
                    x.reason,
                    x.payment,
                    now,
                )? {
                    ended.insert(x.attempt.to_owned());
                }
            }
            Ok(ended)
        }
    }
}

/// When the open invoices of a subscription are tried next.
pub fn retry_dates_of(db: &mut Db<'_>, subscription: &str) -> QueryResult<Vec<i64>> {
    let dates: Vec<Option<i64>> = db_run!(db: {
        i::invoices
            .filter(i::subscription_uuid.eq(subscription))
            .filter(i::status.eq(OPEN))
            .select(i::next_attempt_date)
            .load(db)
    })?;
    Ok(dates.into_iter().flatten().collect())
}

/// How many attempts of these subscriptions are pending.
pub fn pending_attempts_of(db: &mut Db<'_>, subscriptions: &[String]) -> QueryResult<i64> {
    db_run!(db: {
        a::charge_attempts
            .filter(a::subscription_uuid.eq_any(subscriptions))
            .filter(a::status.eq(PENDING))
            .count()
            .get_result(db)
    })
}
