//! Gauges of waiting deliveries, and the log's retention.

use std::time::Duration;

use actix_web::web;

use crate::deliveries::commands::purge;
use crate::deliveries::store::tasks;
use crate::state::NotificationsState;

const GAUGES_EVERY: Duration = Duration::from_secs(5);
/// Gauge passes between purges (an hour).
const PURGE_EVERY: u32 = 720;

pub(crate) async fn run_forever(state: web::Data<NotificationsState>) {
    let mut pass: u32 = 0;
    loop {
        let now_ms = state.clock.unix_ms();
        match state
            .store
            .query(move |db| tasks::waiting(db, now_ms))
            .await
        {
            Ok((count, oldest)) => {
                state.metrics.waiting.set(count);
                state
                    .metrics
                    .oldest_due
                    .set(oldest.map_or(0, |due| (now_ms - due).max(0) / 1000));
            }
            Err(e) => tracing::warn!(error = %e, "counting waiting deliveries failed"),
        }
        if pass.is_multiple_of(PURGE_EVERY) {
            match purge::purge(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "delivery log purged past its retention"),
                Err(e) => {
                    tracing::warn!(error = %e, "purging the delivery log failed; tried again later")
                }
            }
        }
        pass = pass.wrapping_add(1);
        tokio::time::sleep(GAUGES_EVERY).await;
    }
}
