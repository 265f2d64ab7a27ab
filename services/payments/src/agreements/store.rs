//! The copy of billing's subscriptions, and agreements read from the `payment_agreements`
//! view.

use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::{Agreement, AgreementType, KeptSubscription, shown_supporter};
use crate::schema::{payment_agreements::dsl as a, subscriptions::dsl as s};

/// Whether the subscription is kept as announced after `at` (ms): events of one object
/// may arrive out of order on redelivery.
pub fn newer_kept(db: &mut Db<'_>, uuid: &str, at: i64) -> QueryResult<bool> {
    let known: Option<i64> = db_run!(db: {
        s::subscriptions.find(uuid).select(s::updated_ms).first(db).optional()
    })?;
    Ok(known.is_some_and(|k| k > at))
}

/// Keeps the subscription as announced at `at` (ms), in place of what was kept.
pub fn keep(db: &mut Db<'_>, x: &KeptSubscription, at: i64) -> QueryResult<()> {
    let custom_parameters = serde_json::Value::Object(x.custom_parameters.clone()).to_string();
    let terms = (
        s::supporter_uuid.eq(&x.supporter_uuid),
        s::payment_source_uuid.eq(&x.payment_source_uuid),
        s::payment_method.eq(&x.payment_method),
        s::test_mode.eq(x.test_mode),
        s::status.eq(&x.status),
        s::amount.eq(x.amount),
        s::currency.eq(&x.currency),
        s::recurring_interval.eq(&x.recurring_interval),
        s::custom_parameters.eq(&custom_parameters),
        s::updated_ms.eq(at),
    );
    let row = (
        s::uuid.eq(&x.uuid),
        s::organisation_uuid.eq(&x.organisation_uuid),
        s::account_uuid.eq(&x.account_uuid),
        s::created.eq(x.created),
        terms,
    );
    db_run!(db: {
        diesel::insert_into(s::subscriptions)
            .values(&row)
            .on_conflict(s::uuid)
            .do_update()
            .set(terms)
            .execute(db)
            .map(drop)
    })
}

/// A row of the view, in its columns' order.
#[derive(Queryable, Selectable)]
#[diesel(table_name = crate::schema::payment_agreements)]
struct Row {
    uuid: String,
    organisation_uuid: String,
    account_uuid: String,
    agreement_type: AgreementType,
    status: String,
    amount: Option<i64>,
    currency: Option<String>,
    recurring_interval: Option<String>,
    payment_method: String,
    test_mode: bool,
    payment_source_uuid: String,
    subscription_uuid: Option<String>,
    mandate_reference: Option<String>,
    supporter_uuid: Option<String>,
    custom_parameters: String,
    created: i64,
}

/// The agreement `uuid`, with its supporter as a payment's hit shows one.
pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Agreement>> {
    let row: Option<Row> = db_run!(db: {
        a::payment_agreements.filter(a::uuid.eq(uuid)).select(Row::as_select()).first(db).optional()
    })?;
    let Some(row) = row else { return Ok(None) };
    let custom_parameters = serde_json::from_str(&row.custom_parameters)
        .map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
    let supporter = match &row.supporter_uuid {
        None => None,
        Some(id) => Some(match crate::shared::supporter_store::find(db, id)? {
            Some(record) => shown_supporter(
                serde_json::to_value(record)
                    .map_err(|e| DieselError::SerializationError(Box::new(e)))?,
            ),
            None => serde_json::json!({ "uuid": id }),
        }),
    };
    Ok(Some(Agreement {
        uuid: row.uuid,
        organisation_uuid: row.organisation_uuid,
        account_uuid: row.account_uuid,
        agreement_type: row.agreement_type,
        status: row.status,
        amount: row.amount,
        currency: row.currency,
        interval: row.recurring_interval,
        supporter_uuid: row.supporter_uuid,
        supporter,
        payment_method: row.payment_method,
        payment_source_uuid: row.payment_source_uuid,
        subscription_uuid: row.subscription_uuid,
        mandate_reference: row.mandate_reference,
        custom_parameters,
        test_mode: row.test_mode,
        created: row.created,
    }))
}
