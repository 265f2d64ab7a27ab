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
use tokio::task::JoinHandle;

use crate::state::NotificationsState;

pub(crate) struct Worker {
    pub name: &'static str,
    pub description: &'static str,
    start: fn(web::Data<NotificationsState>) -> JoinHandle<()>,
}

pub(crate) const WORKERS: &[Worker] = &[
    Worker {
        name: "sender",
        description: "claims due delivery tasks, sends each try outside any transaction, \
                      and records the answers in batches",
        start: |s| tokio::spawn(sender::run_forever(s)),
    },
    Worker {
        name: "upkeep",
        description: "every few seconds sets the waiting-task gauges; every hour purges the \
                      delivery log past its retention",
        start: |s| tokio::spawn(upkeep::run_forever(s)),
    },
];

/// Starts the event relay and consumers, then every worker of [`WORKERS`].
pub(crate) fn spawn(
    state: &web::Data<NotificationsState>,
    events: &EventWiring,
) -> Vec<JoinHandle<()>> {
    let workers = WORKERS.iter().map(|w| {
        tracing::debug!(
            worker = w.name,
            description = w.description,
            "notifications worker starts"
        );
        (w.start)(state.clone())
    });
    events.spawn().into_iter().chain(workers).collect()
}
