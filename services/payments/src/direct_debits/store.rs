//! The direct-debit queries over payments: finding the collection a bank file names, and
//! failing one the bank gave back. The payments table is the payments feature's; these are
//! here because only direct debits ask them.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::payments::dsl as p;
use crate::shared::record::PaymentStatus;

/// The payment a bank file names by its EndToEndId.
pub fn find_by_end_to_end_id(db: &mut Db<'_>, end_to_end_id: &str) -> QueryResult<Option<String>> {
    db_run!(db: {
        p::payments
            .filter(p::end_to_end_id.eq(end_to_end_id))
            .select(p::uuid)
            .first(db)
            .optional()
    })
}

/// The account's oldest pending collection of `value` under the mandate: what a file that
/// names the mandate but no EndToEndId most likely reports.
pub fn find_pending_by_mandate(
    db: &mut Db<'_>,
    account: &str,
    mandate: &str,
    value: i64,
) -> QueryResult<Option<String>> {
    db_run!(db: {
        p::payments
            .filter(p::account_uuid.eq(account))
            .filter(p::mandate_reference.eq(mandate))
            .filter(p::amount_value.eq(value))
            .filter(p::status.eq(PaymentStatus::Pending))
            .order((p::created.asc(), p::uuid.asc()))
            .select(p::uuid)
            .first(db)
            .optional()
    })
}

/// A collection the bank gave back: failed, from pending or from succeeded (a return
/// after the money arrived); false when it had failed already.
pub fn mark_returned(db: &mut Db<'_>, uuid: &str, now: i64) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(p::payments.filter(p::uuid.eq(uuid)).filter(p::status.eq_any([PaymentStatus::Pending, PaymentStatus::Succeeded])))
            .set((p::status.eq(PaymentStatus::Failed), p::status_reason.eq(Some(RETURNED)), p::updated.eq(now), p::action.eq(None::<String>)))
            .execute(db)
    })?;
    Ok(changed == 1)
}

/// The status reason of a direct debit the bank gave back; `return_reason` says why.
pub const RETURNED: &str = "direct_debit_returned";
