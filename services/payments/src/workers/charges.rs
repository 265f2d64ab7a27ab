//! The two loops of charging (payments/commands/): one sends the charges recorded for
//! billing's attempts, the other asks the provider about charges and refunds never answered.

use std::time::Duration;

use actix_web::web::Data;
use futures_util::StreamExt;

use crate::command_kit::Parts;
use crate::connectors::stripe::connector::STRIPE;
use crate::payments::commands::{self, ChargeBatches};
use crate::payments::store;
use crate::shared::connector::TEST_PROVIDER;

/// Payments taken per pass.
const BATCH: i64 = 500;
/// Calls to the provider made side by side; each waits mostly on the provider.
const AT_ONCE: usize = 16;
/// Chunks of AT_ONCE sent side by side.
const CHUNKS: usize = 4;
/// How often the sender looks without being woken, and the settler looks at all.
const POLL: Duration = Duration::from_millis(500);

/// Sends reserved charges as they are recorded: woken by the handler that records them,
/// and every half second in case a wake-up came before the commit it announced.
pub(crate) async fn send_forever(state: Parts, batches: Data<ChargeBatches>) {
    loop {
        let woken = state.wake_sender.notified();
        let ids = match state.store.query(|db| store::reserved(db, BATCH)).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "listing charges to send failed; retrying");
                Vec::new()
            }
        };
        let full = ids.len() as i64 == BATCH;
        // Taken and called AT_ONCE at a time, so that a taken payment's call begins soon;
        // CHUNKS chunks side by side, so the sender waits on calls and commits together
        // rather than one chunk's after another's.
        futures_util::stream::iter(ids.chunks(AT_ONCE))
            .for_each_concurrent(CHUNKS, |chunk| {
                let (state, batches) = (state.clone(), batches.clone());
                async move {
                    if let Err(e) = commands::send((&state, &batches), chunk.to_vec()).await {
                        tracing::warn!(error = %e, "sending charges failed; those not answered are settled or sent again");
                    }
                }
            })
            .await;
        if !full {
            let _ = tokio::time::timeout(POLL, woken).await;
        }
    }
}

/// Asks the provider about every call left unanswered for `settle_after`.
pub(crate) async fn settle_forever(state: Parts, batches: Data<ChargeBatches>) {
    loop {
        tokio::time::sleep(POLL).await;
        let settle_after = i64::try_from(state.settle_after.as_secs()).unwrap_or(i64::MAX);
        let before = state.clock.unix().saturating_sub(settle_after);
        let ids = match state
            .store
            .query(move |db| store::unsettled(db, before, BATCH))
            .await
        {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "listing unsettled charges failed; retrying");
                continue;
            }
        };
        measure_oldest(&state).await;
        futures_util::stream::iter(ids)
            .for_each_concurrent(AT_ONCE, |id| {
                let (state, batches) = (state.clone(), batches.clone());
                async move {
                    if let Err(e) = commands::settle((&state, &batches), &id, before).await {
                        tracing::warn!(payment = %id, error = %e, "settling a charge failed; it is tried again");
                    }
                }
            })
            .await;
        let refunds = state
            .store
            .query(move |db| crate::refunds::store::unsettled_refunds(db, before, BATCH))
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "listing unsettled refunds failed; retrying");
                Vec::new()
            });
        for id in refunds {
            if let Err(e) = crate::refunds::commands::settle(&state, &id, before).await {
                tracing::warn!(refund = %id, error = %e, "settling a refund failed; it is tried again");
            }
        }
    }
}

/// Gives up on payments whose donor has had their time, once per `settle_after`: a loop of
/// its own, so however many wait (and however slowly their provider answers), the settling
/// of unanswered calls never waits behind them.
pub(crate) async fn give_up_forever(state: Parts) {
    loop {
        tokio::time::sleep(state.settle_after).await;
        give_up_waiting(&state).await;
    }
}

/// Ends the payments whose donor has had `donor_wait` to finish at the provider (3-D
/// Secure): each is made final there first (commands::ending::end_at_provider).
async fn give_up_waiting(state: &Parts) {
    let wait = i64::try_from(state.donor_wait.as_secs()).unwrap_or(i64::MAX);
    let before = state.clock.unix().saturating_sub(wait);
    let ids = state
        .store
        .query(move |db| store::waiting(db, before, BATCH))
        .await
        .unwrap_or_else(|e| {
            tracing::warn!(error = %e, "listing payments that wait for their donor failed; retrying");
            Vec::new()
        });
    futures_util::stream::iter(ids)
        .for_each_concurrent(AT_ONCE, |id| async move {
            if let Err(e) = commands::give_up(state, id.clone()).await {
                tracing::warn!(payment = %id, error = %e, "giving up on a payment that waits for its donor failed; it is tried again");
            }
        })
        .await;
}

/// Asks the provider about payments pending with the bank (a direct debit through Stripe),
/// once per `settle_after` at most and less often as each ages (payments/store.rs
/// `with_bank`): a notification of the end may be lost, and this finds the end anyway.
pub(crate) async fn ask_the_bank_forever(state: Parts) {
    loop {
        tokio::time::sleep(state.settle_after).await;
        let settle_after = i64::try_from(state.settle_after.as_secs()).unwrap_or(i64::MAX);
        let now = state.clock.unix();
        let ids = state
            .store
            .query(move |db| store::with_bank(db, now, settle_after, BATCH))
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "listing payments pending with the bank failed; retrying");
                Vec::new()
            });
        futures_util::stream::iter(ids)
            .for_each_concurrent(AT_ONCE, |id| {
                let state = &state;
                async move {
                    if let Err(e) = commands::ask_the_bank(state, id.clone()).await {
                        tracing::warn!(payment = %id, error = %e, "asking how a payment pending with the bank stands failed; it is asked again later");
                    }
                }
            })
            .await;
    }
}

/// Sets how old each provider's oldest payment with an unanswered call is
/// (connectors/metrics.rs); a provider with none shows 0. Each value is set once, so a
/// scrape never sees a provider's figure drop to 0 and back.
async fn measure_oldest(state: &Parts) {
    let oldest = match state.store.query(store::oldest_calls).await {
        Ok(oldest) => oldest,
        Err(e) => {
            tracing::warn!(error = %e, "reading the oldest unanswered calls failed");
            return;
        }
    };
    let now = state.clock.unix();
    let gauge = &state.connectors.metrics().oldest_unsettled;
    for provider in [TEST_PROVIDER, STRIPE] {
        let made = oldest
            .iter()
            .find(|(p, _)| p == provider)
            .and_then(|(_, made)| *made);
        let age = made.map_or(0, |m| now.saturating_sub(m).max(0));
        gauge.with_label_values(&[provider]).set(age);
    }
}
