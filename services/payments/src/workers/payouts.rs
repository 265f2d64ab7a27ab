//! Pays out each account's payments once a day: every pass settles the accounts with
//! payments from before today and no payout today, so a pass missed (a restart, a pod
//! moved) is made up by the next.

use std::sync::Arc;
use std::time::Duration;

use crate::payouts::commands::{Settler, settle_due};
use crate::payouts::domain::FeeSchedule;
use crate::state::PaymentsState;

/// What settling an account needs, as the worker holds it.
pub(crate) fn settler(state: &PaymentsState, fees: FeeSchedule) -> Settler {
    Settler {
        store: state.store.clone(),
        outbox: state.outbox.clone(),
        clock: Arc::clone(&state.clock),
        fees,
    }
}

pub async fn settle_forever(settler: Settler, every: Duration) {
    loop {
        match settle_due(&settler).await {
            Ok(0) => {}
            Ok(made) => tracing::info!(made, "payouts made"),
            Err(e) => tracing::warn!(error = %e, "looking for accounts to pay out failed"),
        }
        tokio::time::sleep(every).await;
    }
}
