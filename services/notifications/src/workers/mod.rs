//! Notifications' background loops, each named and described here, and started from this
//! list (by `Notifications::spawn_workers`). A worker only calls commands; it decides
//! nothing itself.
//!
//! - the event relay and two consumers (`EventWiring`, built in lib.rs): `replica` reads
//!   identity's organisations and accounts; `deliveries` reads every domain's events and
//!   writes the delivery tasks they are owed (deliveries/events.rs).
//! - `sender`: claims due tasks, sends them, and records the answers.
//! - `upkeep`: keeps the waiting-task gauges current and purges the log past its retention.

mod sender;
mod upkeep;

use actix_web::web;
use coffer_events::EventWiring;
use coffer_http::workers::{Worker, start_all};
use tokio::task::JoinHandle;

use crate::state::NotificationsState;

type Workers = [Worker<web::Data<NotificationsState>>];

pub(crate) const WORKERS: &Workers = &[
    Worker {
        name: "sender",
        description: "claims due delivery tasks, sends each try outside any transaction, \
                      and records the answers in batches",
        start: |s| Some(tokio::spawn(sender::run_forever(s.clone()))),
    },
    Worker {
        name: "upkeep",
        description: "every few seconds sets the waiting-task gauges; every hour purges the \
                      delivery log past its retention",
        start: |s| Some(tokio::spawn(upkeep::run_forever(s.clone()))),
    },
];

/// Starts the event relay and consumers, then every worker of [`WORKERS`].
pub(crate) fn spawn(
    state: &web::Data<NotificationsState>,
    events: &EventWiring,
) -> Vec<JoinHandle<()>> {
    start_all("notifications", events.spawn(), WORKERS, state)
}
