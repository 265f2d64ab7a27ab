//! Forgets authorization codes a day after they expired, every ten minutes: they are
//! useless by then, and the table would otherwise grow with every sign-in.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::sso::store::purge;
use crate::state::IdentityState;

const EVERY: Duration = Duration::from_secs(600);
const KEPT_AFTER_EXPIRY_SECS: i64 = 86_400;

pub(super) fn spawn(state: &IdentityState) -> JoinHandle<()> {
    let store = state.store.clone();
    let clock = Arc::clone(&state.clock);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let before = clock.unix().saturating_sub(KEPT_AFTER_EXPIRY_SECS);
            match store.query(move |c| purge(c, before)).await {
                Ok(0) => {}
                Ok(n) => tracing::debug!(purged = n, "forgot expired authorization codes"),
                Err(e) => tracing::warn!(error = %e, "could not purge authorization codes"),
            }
        }
    })
}
