//! Recording what a provider says of a dispute, with its event, once and never backwards;
//! and a payment's disputes for whoever may see the payment.

use coffer_auth::Caller;
use coffer_events::{TraceContext, append};

use super::domain::{Dispute, Said, change, moved_on};
use super::store::{self, Row};
use crate::command_kit::Parts;
use crate::error::PaymentsError;
use crate::shared::owner::require_owner;
use crate::shared::record::Payment;
use crate::shared::store as record;

/// Records what connector account `account` says of a dispute of `payment`, with the event
/// it announces; false when it changes nothing (a late or repeated word).
pub(crate) async fn record_said(
    state: &Parts,
    account: &str,
    payment: &Payment,
    said: Said,
    trace: &TraceContext,
) -> Result<bool, PaymentsError> {
    let (account, payment) = (account.to_owned(), payment.clone());
    let (st, trace) = (state.clone(), trace.clone());
    let now = state.clock.unix();
    let changed = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                // Written so that two deliveries at once cannot both change it: a new
                // dispute is inserted once, and a known one changes only while it is open,
                // to another status, from an older word (the row's lock decides which).
                let fresh = Row {
                    connector_account_uuid: account.clone(),
                    provider_dispute_id: said.provider_dispute_id.clone(),
                    uuid: uuid::Uuid::new_v4().to_string(),
                    payment_uuid: payment.uuid.clone(),
                    amount_value: said.amount.value,
                    currency: said.amount.currency.code().to_owned(),
                    reason: said.reason.clone(),
                    status: said.status.clone(),
                    created: now,
                    provider_updated: said.at,
                };
                let event = if store::insert_new(tx, &fresh)? {
                    change(None, &said)
                } else if store::update_open(tx, &fresh)? {
                    Some(moved_on(&said))
                } else {
                    None
                };
                let Some(event) = event else {
                    return Ok::<_, PaymentsError>(false);
                };
                let row = store::find(tx, &account, &said.provider_dispute_id)?
                    .ok_or(diesel::result::Error::NotFound)?;
                let dispute = row.into_dispute()?;
                let body = serde_json::to_value(&dispute).map_err(PaymentsError::internal)?;
                let id = dispute.uuid.parse().map_err(PaymentsError::internal)?;
                let announced = st.outbox.event(
                    event,
                    id,
                    payment.organisation_uuid.parse().ok(),
                    payment.account_uuid.parse().ok(),
                    body,
                );
                append(tx, &[announced], Some(&trace))?;
                Ok(true)
            })
        })
        .await?;
    state.outbox.committed();
    Ok(changed)
}

/// The disputes of payment `uuid`, once the caller may see it.
pub(crate) async fn of_payment(
    state: &Parts,
    caller: &Caller,
    uuid: String,
) -> Result<Vec<Dispute>, PaymentsError> {
    let id = uuid.clone();
    let payment = state
        .store
        .query(move |db| record::find(db, &id))
        .await?
        .ok_or(PaymentsError::not_found("Payment"))?;
    require_owner(caller, &payment.account_uuid, &payment.organisation_uuid)?;
    Ok(state
        .store
        .query(move |db| store::of_payment(db, &uuid))
        .await?)
}
