//! Forgets the provider notifications applied longer ago than any provider retries one
//! (provider_notifications/store.rs), every hour, so their table holds a month at most.

use std::time::Duration;

use coffer_store::StoreError;

use crate::command_kit::Parts;
use crate::provider_notifications::store;

/// Stripe retries a notification for up to three days; a month leaves room for an endpoint
/// that was down, or a delivery resent from its dashboard, to be recognised.
const KEPT_SECS: i64 = 30 * 24 * 3600;
const EVERY: Duration = Duration::from_secs(3600);

pub(crate) async fn forget_forever(state: Parts) {
    loop {
        let before = state.clock.unix().saturating_sub(KEPT_SECS);
        match state
            .store
            .write(move |db| store::forget(db, before).map_err(StoreError::from))
            .await
        {
            Ok(0) => {}
            Ok(forgotten) => tracing::info!(forgotten, "old provider notifications forgotten"),
            Err(e) => tracing::warn!(error = %e, "forgetting old provider notifications failed"),
        }
        tokio::time::sleep(EVERY).await;
    }
}
