//! Refunds' queries: a refund recorded before its call to the provider, its answer
//! recorded once, and the calls left unanswered. A payment's refunds are read with it
//! (shared/store.rs), which also reads a refund's columns for [`find_refund`].

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::payments::dsl as p;
use crate::schema::refunds::dsl as r;
use crate::shared::record::{ChargeState, PaymentStatus, Refund, RefundStatus};
use crate::shared::store::{RefundRow, refund_of};

/// Raises the payment's refunded amount by `value` if it stays within the amount and the
/// payment has succeeded; false otherwise. One statement, so concurrent refunds can never
/// add up to more than was paid.
pub fn add_refunded(db: &mut Db<'_>, uuid: &str, value: i64, now: i64) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(
            p::payments.filter(
                p::uuid
                    .eq(uuid)
                    .and(p::status.eq(PaymentStatus::Succeeded))
                    .and((p::refunded_amount + value).le(p::amount_value)),
            ),
        )
        .set((p::refunded_amount.eq(p::refunded_amount + value), p::updated.eq(now)))
        .execute(db)
    })?;
    Ok(changed == 1)
}

/// Records a refund whose call to the provider begins now.
pub fn insert_refund(db: &mut Db<'_>, payment: &str, refund: &Refund) -> QueryResult<()> {
    let row = (
        r::uuid.eq(&refund.uuid),
        r::payment_uuid.eq(payment),
        r::amount_value.eq(refund.amount.value),
        r::currency.eq(refund.amount.currency.code()),
        r::status.eq(refund.status),
        r::created.eq(refund.created),
        r::charge_state.eq(if refund.status == RefundStatus::Pending {
            ChargeState::Calling
        } else {
            ChargeState::Done
        }),
        r::charge_started.eq(Some(refund.created)),
    );
    db_run!(db: { diesel::insert_into(r::refunds).values(&row).execute(db).map(drop) })
}

/// A refund with its payment's uuid and where its call stands.
pub fn find_refund(
    db: &mut Db<'_>,
    uuid: &str,
) -> QueryResult<Option<(String, Refund, ChargeState)>> {
    let row: Option<RefundRow> = db_run!(db: {
        r::refunds
            .find(uuid)
            .select((r::uuid, r::payment_uuid, r::amount_value, r::currency, r::status, r::status_reason, r::created, r::charge_state))
            .first(db)
            .optional()
    })?;
    row.map(refund_of).transpose()
}

/// Records the provider's answer on a refund whose call is under way; false when it was
/// recorded already. A failed refund gives its amount back to what may be refunded.
pub fn record_refund(
    db: &mut Db<'_>,
    uuid: &str,
    status: RefundStatus,
    reason: Option<&str>,
    now: i64,
) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(r::refunds.filter(r::uuid.eq(uuid).and(r::charge_state.eq(ChargeState::Calling))))
            .set((r::status.eq(status), r::status_reason.eq(reason), r::charge_state.eq(ChargeState::Done)))
            .execute(db)
    })?;
    if changed == 1
        && status == RefundStatus::Failed
        && let Some((payment, refund, _)) = find_refund(db, uuid)?
    {
        let value = refund.amount.value;
        db_run!(db: {
            diesel::update(p::payments.find(&payment))
                .set((p::refunded_amount.eq(p::refunded_amount - value), p::updated.eq(now)))
                .execute(db)
        })?;
    }
    Ok(changed == 1)
}

/// Refunds whose call began before `before` and has no recorded answer, oldest first.
pub fn unsettled_refunds(db: &mut Db<'_>, before: i64, limit: i64) -> QueryResult<Vec<String>> {
    db_run!(db: {
        r::refunds
            .filter(r::charge_state.eq(ChargeState::Calling).and(r::charge_started.lt(before)))
            .order(r::charge_started.asc())
            .limit(limit)
            .select(r::uuid)
            .load(db)
    })
}

/// Takes an unanswered refund for settling; false when another process took it first.
pub fn claim_refund(db: &mut Db<'_>, uuid: &str, before: i64, now: i64) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(
            r::refunds.filter(r::uuid.eq(uuid).and(r::charge_state.eq(ChargeState::Calling)).and(r::charge_started.lt(before))),
        )
        .set(r::charge_started.eq(now))
        .execute(db)
    })?;
    Ok(changed == 1)
}
