//! What a reported direct debit does to payments, inside the consumer's transaction (the
//! event's inbox row and these changes commit together, so each happens once).

use coffer_events::TraceContext;
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::json;

use super::domain::Reported;
use super::store as debits;
use crate::error::PaymentsError;
use crate::shared::announce::announce;
use crate::shared::method::PaymentMethod;
use crate::shared::record::{Payment, PaymentStatus};
use crate::shared::store as settlements;
use crate::shared::store;
use crate::state::PaymentsState;

/// The payment the file names: by EndToEndId, else the oldest pending collection of the
/// same amount under the mandate; only the account's own direct debits count.
fn named(tx: &mut Db<'_>, reported: &Reported) -> Result<Option<Payment>, DieselError> {
    let by_id = match &reported.end_to_end_id {
        Some(id) => debits::find_by_end_to_end_id(tx, id)?,
        None => None,
    };
    let uuid = match (by_id, &reported.mandate_reference) {
        (Some(uuid), _) => Some(uuid),
        (None, Some(mandate)) => debits::find_pending_by_mandate(
            tx,
            &reported.account_uuid,
            mandate,
            reported.amount.value,
        )?,
        (None, None) => None,
    };
    let Some(uuid) = uuid else { return Ok(None) };
    Ok(store::find(tx, &uuid)?.filter(|p| {
        p.account_uuid == reported.account_uuid && p.payment_method == PaymentMethod::SepaDd
    }))
}

/// The bank collected it: the pending payment succeeds on the value date; one payments
/// never started (collected by another system, say), or had given up, is recorded as
/// succeeded.
pub(crate) fn received(
    tx: &mut Db<'_>,
    state: &PaymentsState,
    reported: &Reported,
    now: i64,
) -> Result<(), PaymentsError> {
    let trace = TraceContext::new_root();
    match named(tx, reported)? {
        Some(payment) if payment.status == PaymentStatus::Pending => {
            if payment.amount != reported.amount {
                tracing::warn!(payment = %payment.uuid, "a notification reports another amount than the collection's; the payment stays pending");
                return Ok(());
            }
            store::complete(tx, &payment.uuid, PaymentStatus::Succeeded, None, now)?;
            settlements::set_value_date(tx, &payment.uuid, &reported.value_date)?;
            let done = store::find(tx, &payment.uuid)?.ok_or(DieselError::NotFound)?;
            announce(tx, &state.outbox, &done, &trace)?;
        }
        // Settled before (by a test settle, or an earlier file): only the date is new.
        Some(payment) if payment.status == PaymentStatus::Succeeded => {
            if payment.value_date.is_none() {
                settlements::set_value_date(tx, &payment.uuid, &reported.value_date)?;
            }
        }
        // Reported again after it was collected and returned (a notification sent twice,
        // or overlapping): that collection is known, and its money went back.
        Some(payment) if payment.value_date.is_some() => {}
        // Collected although Coffer had given it up without its money ever arriving
        // (returned while pending, or cancelled by an earlier version): the money arrived
        // now, so it is recorded as a payment of its own, as one Coffer never started,
        // rather than lost.
        Some(payment) => {
            tracing::warn!(payment = %payment.uuid, status = %payment.status, debit = %reported.debit_uuid, "the bank collected a direct debit Coffer had given up; it is recorded as a payment of its own");
            record_unstarted(tx, state, reported, now, &trace)?;
        }
        None => record_unstarted(tx, state, reported, now, &trace)?,
    }
    Ok(())
}

/// Records a collection no pending payment stands for, once (by the debit's uuid).
fn record_unstarted(
    tx: &mut Db<'_>,
    state: &PaymentsState,
    reported: &Reported,
    now: i64,
    trace: &TraceContext,
) -> Result<(), PaymentsError> {
    if store::find(tx, &reported.debit_uuid)?.is_some() {
        return Ok(());
    }
    let payment = recorded(reported, now);
    store::insert(tx, &payment)?;
    settlements::set_value_date(tx, &payment.uuid, &reported.value_date)?;
    let done = store::find(tx, &payment.uuid)?.ok_or(DieselError::NotFound)?;
    announce(tx, &state.outbox, &done, trace)?;
    Ok(())
}

/// The bank gave it back: the payment fails, with the return's reason code.
pub(crate) fn returned(
    tx: &mut Db<'_>,
    state: &PaymentsState,
    reported: &Reported,
    now: i64,
) -> Result<(), PaymentsError> {
    let Some(payment) = named(tx, reported)? else {
        tracing::info!(debit = %reported.debit_uuid, "a returned direct debit names no payment of the account");
        return Ok(());
    };
    if !debits::mark_returned(tx, &payment.uuid, now)? {
        return Ok(());
    }
    let reason = reported.reason.as_deref().unwrap_or("NARR");
    settlements::set_return_reason(tx, &payment.uuid, reason)?;
    let done = store::find(tx, &payment.uuid)?.ok_or(DieselError::NotFound)?;
    announce(tx, &state.outbox, &done, &TraceContext::new_root())?;
    Ok(())
}

/// A collection payments did not start, as the notification shows it.
fn recorded(reported: &Reported, now: i64) -> Payment {
    Payment {
        supporter: Some(reported.supporter_snapshot()),
        payment_information: json!({
            "iban": reported.debtor_iban.as_deref().and_then(|i| coffer_model::iban::Iban::parse(i).ok()).map(|i| crate::shared::method::masked_iban(&i)),
            "account_holder": reported.debtor_name,
        }),
        // Kept when it names nothing else: the unique index takes one payment per id.
        end_to_end_id: None,
        mandate_reference: reported.mandate_reference.clone(),
        ..Payment::from_bank_file(
            reported.debit_uuid.clone(),
            reported.organisation_uuid.clone(),
            reported.account_uuid.clone(),
            PaymentMethod::SepaDd,
            reported.amount,
            now,
        )
    }
}
