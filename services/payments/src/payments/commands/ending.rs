//! Ending a payment that waited with its call answered: for the donor (the test provider's
//! page, a provider's 3-D Secure) or for the bank (a direct debit). Whoever learns the end
//! first (the donor's decision, the bank's file, the provider's notification) ends it, once:
//! only a pending payment ends, so a late or repeated word changes nothing.

use coffer_events::TraceContext;
use diesel::result::Error as DieselError;

use crate::command_kit::Parts;
use crate::error::PaymentsError;
use crate::shared::announce::announce;
use crate::shared::record::{Payment, PaymentStatus};
use crate::shared::source::SourceStatus;
use crate::shared::source_decision::decide_in;
use crate::shared::store as record;

/// How a waiting payment ended: succeeded, or failed with why.
pub(crate) struct Ending {
    pub status: PaymentStatus,
    pub reason: Option<String>,
    /// The day the bank collected it, when that is known (a direct debit).
    pub value_date: Option<String>,
}

/// Ends the pending payment `uuid` as `ending` says, with its event, and decides the source
/// it keeps with it; `None` when it was no longer pending.
pub(crate) async fn end_pending(
    state: &Parts,
    uuid: String,
    ending: Ending,
    trace: TraceContext,
) -> Result<Option<Payment>, PaymentsError> {
    let now = state.clock.unix();
    let st = state.clone();
    let done = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let Ending {
                    status,
                    reason,
                    value_date,
                } = &ending;
                if !record::complete(tx, &uuid, *status, reason.as_deref(), now)? {
                    return Ok(None);
                }
                if let Some(day) = value_date {
                    record::set_value_date(tx, &uuid, day)?;
                }
                let finished = record::find(tx, &uuid)?.ok_or(DieselError::NotFound)?;
                announce(tx, &st.outbox, &finished, &trace)?;
                if let Some(source) = &finished.created_payment_source_uuid {
                    let approved = *status == PaymentStatus::Succeeded;
                    let reason = reason.as_deref().filter(|_| !approved);
                    let decided = SourceStatus::decided(approved);
                    decide_in(tx, &st.outbox, source, decided, reason, now, &trace)?;
                }
                Ok::<_, PaymentsError>(Some(finished))
            })
        })
        .await?;
    state.outbox.committed();
    Ok(done)
}
