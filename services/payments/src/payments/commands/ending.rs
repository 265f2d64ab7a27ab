//! Ending a payment that waited with its call answered: for the donor (the test provider's
//! page, a provider's 3-D Secure) or for the bank (a direct debit). Whoever learns the end
//! first (the donor's decision, the bank's file, the provider's notification) ends it, once:
//! only a pending payment ends, so a late or repeated word changes nothing.

use coffer_events::TraceContext;
use coffer_store::StoreError;
use diesel::result::Error as DieselError;

use crate::command_kit::{Parts, provider_of_payment, within};
use crate::error::PaymentsError;
use crate::payments::store;
use crate::shared::announce::announce;
use crate::shared::connector::{ChargeOutcome, TEST_PROVIDER};
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
                // The bank worker has nothing more to ask about it.
                store::forget_asks(tx, &uuid)?;
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

/// How a charge that waited for its donor at a provider outside the process ended, asked of
/// the provider and made final there (a failed one is closed before Coffer says it failed,
/// shared/connector.rs `end_waiting`), with the payment ended so: the payment as it stands
/// then, or None while it still waits. `give_up` when the donor has had their time.
pub(crate) async fn end_at_provider(
    state: &Parts,
    payment: &Payment,
    give_up: bool,
    trace: TraceContext,
) -> Result<Option<Payment>, PaymentsError> {
    let Some(prepared) = payment.provider_payment_id.as_deref() else {
        return Ok(None);
    };
    let connector = provider_of_payment(state, payment).await?;
    let asked = connector.end_waiting(&payment.uuid, prepared, give_up);
    let answer = within(state, asked).await.map_err(|e| {
        tracing::warn!(payment = %payment.uuid, error = %e, "the provider cannot say yet how a waiting charge ended");
        PaymentsError::ProviderSilent("the payment's provider cannot be reached; try again shortly")
    })?;
    let ending = match answer {
        Some(ChargeOutcome::Succeeded { .. }) => Ending {
            status: PaymentStatus::Succeeded,
            reason: None,
            value_date: None,
        },
        Some(ChargeOutcome::Failed { reason, .. }) => Ending {
            status: PaymentStatus::Failed,
            reason: Some(reason),
            value_date: None,
        },
        Some(ChargeOutcome::Pending { .. }) | None => return Ok(None),
    };
    if let Some(ended) = end_pending(state, payment.uuid.clone(), ending, trace).await? {
        return Ok(Some(ended));
    }
    // Ended meanwhile (a notification, the donor's return): as it stands.
    let uuid = payment.uuid.clone();
    Ok(state.store.query(move |db| record::find(db, &uuid)).await?)
}

/// The settler's end of a payment whose donor has had their time (workers/charges.rs): made
/// final at the provider, or left while the provider still decides.
pub(crate) async fn give_up(state: &Parts, uuid: String) -> Result<(), PaymentsError> {
    let Some(payment) = state.store.query(move |db| record::find(db, &uuid)).await? else {
        return Ok(());
    };
    if payment.status != PaymentStatus::Pending || payment.action.is_none() {
        return Ok(());
    }
    end_at_provider(state, &payment, true, TraceContext::new_root()).await?;
    Ok(())
}

/// The bank worker's look at a payment pending with the bank at a provider outside the
/// process (a direct debit through Stripe; workers/charges.rs): the provider asked how it
/// stands, and the payment ended if it has. The ask is noted first, so a provider that
/// cannot answer is asked again only as the payment's age says, not at every pass.
pub(crate) async fn ask_the_bank(state: &Parts, uuid: String) -> Result<(), PaymentsError> {
    let id = uuid.clone();
    let Some(payment) = state.store.query(move |db| record::find(db, &id)).await? else {
        return Ok(());
    };
    let with_bank = payment.status == PaymentStatus::Pending
        && payment.action.is_none()
        && payment.payment_provider != TEST_PROVIDER;
    if !with_bank {
        return Ok(());
    }
    let now = state.clock.unix();
    state
        .store
        .write(move |db| store::asked_provider(db, &uuid, now).map_err(StoreError::from))
        .await?;
    end_at_provider(state, &payment, false, TraceContext::new_root()).await?;
    Ok(())
}
