//! Reconciliation's background loops, all of them: the event relay and the consumers
//! (`EventWiring`, built in lib.rs), `uploads::read_forever`, which finds files uploaded
//! under sources' prefixes and reads each once, several organisations' side by side, and
//! `sftp::poll_forever`, which polls the SFTP sources that are due. Every file is read in
//! its turn (files/turns.rs).

pub mod sftp;
pub mod uploads;

use actix_web::web;
use coffer_events::EventWiring;
use tokio::task::JoinHandle;

use crate::files::turns::Turns;
use crate::state::ReconciliationState;

pub(crate) fn spawn(
    state: &web::Data<ReconciliationState>,
    turns: &web::Data<Turns>,
    events: &EventWiring,
) -> Vec<JoinHandle<()>> {
    let mut started = events.spawn();
    if state.objects.is_some() {
        started.push(tokio::spawn(uploads::read_forever(
            state.clone(),
            turns.clone(),
        )));
    }
    started.push(tokio::spawn(sftp::poll_forever(
        state.clone(),
        turns.clone(),
    )));
    started
}
