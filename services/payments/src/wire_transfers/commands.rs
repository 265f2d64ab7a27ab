//! What a reported wire transfer does to payments, inside the consumer's transaction (the
//! event's inbox row and the payment commit together, so each happens once).

use coffer_events::TraceContext;
use coffer_store::Db;
use diesel::result::Error as DieselError;

use super::domain::Transfer;
use crate::error::PaymentsError;
use crate::shared::announce::announce;
use crate::shared::store as settlements;
use crate::shared::store;
use crate::state::PaymentsState;

/// The bank credited the account: a succeeded payment under the transfer's id, dated on
/// the value date, with its `payment.succeeded` event. The same credit reported again (in
/// a later file, or the event delivered twice) finds its payment and records nothing.
pub(crate) fn received(
    tx: &mut Db<'_>,
    state: &PaymentsState,
    transfer: &Transfer,
    now: i64,
) -> Result<(), PaymentsError> {
    let payment = transfer.payment(now);
    if store::find(tx, &payment.uuid)?.is_some() {
        return Ok(());
    }
    store::insert(tx, &payment)?;
    settlements::set_value_date(tx, &payment.uuid, &transfer.value_date)?;
    let done = store::find(tx, &payment.uuid)?.ok_or(DieselError::NotFound)?;
    announce(tx, &state.outbox, &done, &TraceContext::new_root())?;
    Ok(())
}
