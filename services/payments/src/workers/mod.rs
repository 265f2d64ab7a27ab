//! Payments' background loops, all listed here; each calls commands, as routes do.
//!
//! - `charges::send_forever`: sends the charges billing's attempts recorded.
//! - `charges::settle_forever`: settles calls to the provider that were never answered.
//! - `search::counts::fold_forever` (in search/counts.rs): folds kept payment counts.

pub mod charges;

use std::time::Duration;

use tokio::task::JoinHandle;

use crate::payments::commands::Parts;

/// Starts every worker of payments (the relay and consumers are started beside them).
pub(crate) fn spawn(state: &Parts) -> Vec<JoinHandle<()>> {
    vec![
        tokio::spawn(charges::send_forever(state.clone())),
        tokio::spawn(charges::settle_forever(state.clone())),
        tokio::spawn(crate::search::counts::fold_forever(
            state.store.clone(),
            Duration::from_secs(1),
        )),
    ]
}
