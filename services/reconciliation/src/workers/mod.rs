//! Reconciliation's background loops, all of them: the event relay and the consumers
//! (`EventWiring`, built in lib.rs), `uploads::read_forever`, which finds files uploaded
//! under sources' prefixes and reads each once, several organisations' side by side, and
//! `sftp::poll_forever`, which polls the SFTP sources that are due. Every file is read in
//! its turn (files/turns.rs).

pub mod sftp;
pub mod uploads;

use actix_web::web;
use coffer_events::EventWiring;
use coffer_http::workers::{Worker, start_all};
use tokio::task::JoinHandle;

use crate::files::turns::Turns;
use crate::state::ReconciliationState;

/// What the workers read: the state, and the turns every file is read in.
pub(crate) struct Running {
    state: web::Data<ReconciliationState>,
    turns: web::Data<Turns>,
}

pub(crate) const WORKERS: &[Worker<Running>] = &[
    Worker {
        name: "uploads",
        description: "finds files uploaded under sources' prefixes and reads each once; \
                      only where an object store is set",
        start: |r| {
            r.state.objects.as_ref()?;
            Some(tokio::spawn(uploads::read_forever(
                r.state.clone(),
                r.turns.clone(),
            )))
        },
    },
    Worker {
        name: "sftp",
        description: "polls the SFTP sources that are due",
        start: |r| {
            Some(tokio::spawn(sftp::poll_forever(
                r.state.clone(),
                r.turns.clone(),
            )))
        },
    },
];

/// Starts the event relay and consumers, then every worker of [`WORKERS`].
pub(crate) fn spawn(
    state: &web::Data<ReconciliationState>,
    turns: &web::Data<Turns>,
    events: &EventWiring,
) -> Vec<JoinHandle<()>> {
    let running = Running {
        state: state.clone(),
        turns: turns.clone(),
    };
    start_all("reconciliation", events.spawn(), WORKERS, &running)
}
