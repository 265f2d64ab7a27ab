//! Payments' background loops, all listed here; each calls commands, as routes do.
//!
//! - the event relay and consumers (`EventWiring`, built in lib.rs): the replica of
//!   identity's organisations and accounts, billing's charge attempts, and billing's
//!   subscriptions (the copy payment agreements are answered from, agreements/events.rs).
//! - `charges::send_forever`: sends the charges billing's attempts recorded.
//! - `charges::settle_forever`: settles calls to the provider that were never answered.
//! - `payouts::settle_forever`: pays out each account's payments once a day.
//! - `search::counts::fold_forever` (in search/counts.rs): folds kept payment counts.

pub mod charges;
pub mod payouts;

use std::time::Duration;

use coffer_events::EventWiring;
use tokio::task::JoinHandle;

use crate::command_kit::Parts;

/// Starts every worker of payments, the event relay and consumers first.
pub(crate) fn spawn(state: &Parts, events: &EventWiring) -> Vec<JoinHandle<()>> {
    let mut started = events.spawn();
    started.extend([
        tokio::spawn(charges::send_forever(state.clone())),
        tokio::spawn(charges::settle_forever(state.clone())),
        tokio::spawn(payouts::settle_forever(
            payouts::settler(state),
            state.payout_every,
        )),
        tokio::spawn(crate::search::counts::fold_forever(
            state.store.clone(),
            Duration::from_secs(1),
        )),
    ]);
    started
}
