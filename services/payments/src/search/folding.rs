//! The worker that folds what the payments triggers appended: kept counts (counts.rs),
//! parameter counts (parameters.rs) and roll-ups (rollups.rs).

use std::time::Duration;

use coffer_store::Store;

use super::{counts, parameters, rollups};

/// Folds the counts and the roll-ups every `every`, for as long as the
/// service runs. A fold that fails is retried at
/// the next tick; searches stay right meanwhile, only slower.
pub async fn fold_forever(store: Store, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(e) = store.query(counts::fold).await {
            tracing::warn!(error = %e, "folding payment counts failed; retrying");
        }
        if let Err(e) = store.query(parameters::fold).await {
            tracing::warn!(error = %e, "folding payment parameter counts failed; retrying");
        }
        if let Err(e) = store.query(rollups::fold_all).await {
            tracing::warn!(error = %e, "folding payment roll-ups failed; retrying");
        }
    }
}
