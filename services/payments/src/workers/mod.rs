//! Payments' background loops, all listed here; each calls commands, as routes do.
//!
//! - the event relay and consumers (`EventWiring`, built in lib.rs), each in its
//!   feature's events.rs: the copy of identity's organisations and accounts
//!   (profiles/events.rs), billing's charge attempts, billing's subscriptions (the copy
//!   payment agreements are answered from, agreements/events.rs), and reconciliation's
//!   payout matches, direct debits and wire transfers.
//! - `charges::send_forever`: sends the charges billing's attempts recorded.
//! - `charges::settle_forever`: settles calls to the provider that were never answered.
//! - `charges::give_up_forever`: gives up on payments whose donor never finished.
//! - `charges::ask_the_bank_forever`: asks a provider how its payments pending with the
//!   bank stand.
//! - `payouts::settle_forever`: pays out each account's payments once a day.
//! - `search::folding::fold_forever` (in search/folding.rs): folds kept payment counts and
//!   roll-ups.
//! - `notifications::forget_forever`: forgets provider notifications past any retry.

pub mod charges;
pub mod notifications;
pub mod payouts;

use std::time::Duration;

use actix_web::web::Data;
use coffer_events::EventWiring;
use coffer_http::workers::{Worker, start_all};
use tokio::task::JoinHandle;

use crate::command_kit::Parts;
use crate::payments::commands::ChargeBatches;
use crate::payouts::domain::FeeSchedule;

/// What the workers start from: the service's state, and each feature's own part of it.
pub(crate) struct Inputs {
    pub state: Parts,
    pub charges: Data<ChargeBatches>,
    /// What the test provider keeps from each payment it pays out.
    pub payout_fees: FeeSchedule,
    /// How often the payout worker looks for accounts to settle.
    pub payout_every: Duration,
}

pub(crate) const WORKERS: &[Worker<Inputs>] = &[
    Worker {
        name: "send_charges",
        description: "sends the charges billing's attempts recorded",
        start: |s| {
            Some(tokio::spawn(charges::send_forever(
                s.state.clone(),
                s.charges.clone(),
            )))
        },
    },
    Worker {
        name: "settle_charges",
        description: "settles calls to the provider that were never answered",
        start: |s| {
            Some(tokio::spawn(charges::settle_forever(
                s.state.clone(),
                s.charges.clone(),
            )))
        },
    },
    Worker {
        name: "give_up_waiting",
        description: "gives up on payments whose donor never finished at the provider",
        start: |s| Some(tokio::spawn(charges::give_up_forever(s.state.clone()))),
    },
    Worker {
        name: "ask_the_bank",
        description: "asks the provider how payments pending with the bank stand",
        start: |s| Some(tokio::spawn(charges::ask_the_bank_forever(s.state.clone()))),
    },
    Worker {
        name: "payouts",
        description: "pays out each account's payments once a day",
        start: |s| {
            Some(tokio::spawn(payouts::settle_forever(
                payouts::settler(&s.state, s.payout_fees),
                s.payout_every,
            )))
        },
    },
    Worker {
        name: "search_counts",
        description: "folds the kept payment counts and roll-ups searches answer from",
        start: |s| {
            Some(tokio::spawn(crate::search::folding::fold_forever(
                s.state.store.clone(),
                Duration::from_secs(1),
            )))
        },
    },
    Worker {
        name: "forget_notifications",
        description: "forgets provider notifications applied longer ago than any retry",
        start: |s| Some(tokio::spawn(notifications::forget_forever(s.state.clone()))),
    },
];

/// Starts the event relay and consumers, then every worker of [`WORKERS`].
pub(crate) fn spawn(inputs: &Inputs, events: &EventWiring) -> Vec<JoinHandle<()>> {
    start_all("payments", events.spawn(), WORKERS, inputs)
}
