//! Finds files uploaded under sources' prefixes and reads each once: a pass records the
//! new ones, then starts reading the oldest waiting file of each organisation not reading
//! one already; the readings go on beside the passes, each in its turn (files/turns.rs),
//! so a slow file holds up only its own organisation's. Any replica of the service may run
//! it at once: a file is recorded once by its key, and its report written once by its row.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use actix_web::web;
use tokio::task::{Id, JoinSet};

use crate::files::turns::Turns;
use crate::state::ReconciliationState;
use crate::uploads::commands::{due_fairly, read_upload, receive_new};

/// Readings started and not finished, at most: the rest of the waiting files are picked
/// by later passes.
const MAX_STARTED: usize = 64;

/// A reading started: its file and its organisation.
struct Started {
    file: String,
    organisation: String,
}

pub async fn read_forever(state: web::Data<ReconciliationState>, turns: web::Data<Turns>) {
    let mut readings: JoinSet<()> = JoinSet::new();
    let mut started: HashMap<Id, Started> = HashMap::new();
    loop {
        match receive_new(&state).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(files = n, "new bank files received"),
            Err(e) => tracing::warn!(error = %e, "looking for uploaded files failed"),
        }
        while let Some(done) = readings.try_join_next_with_id() {
            finished(&mut started, done);
        }
        if started.len() < MAX_STARTED {
            start_due(&state, &turns, &mut readings, &mut started).await;
        }
        let pause = tokio::time::sleep(state.read_every.max(Duration::from_millis(100)));
        tokio::select! {
            () = pause => {}
            Some(done) = readings.join_next_with_id() => finished(&mut started, done),
        }
    }
}

async fn start_due(
    state: &web::Data<ReconciliationState>,
    turns: &web::Data<Turns>,
    readings: &mut JoinSet<()>,
    started: &mut HashMap<Id, Started>,
) {
    let busy: HashSet<String> = started.values().map(|s| s.organisation.clone()).collect();
    let reading: HashSet<String> = started.values().map(|s| s.file.clone()).collect();
    let due = match due_fairly(state, &busy, &reading).await {
        Ok(due) => due,
        Err(e) => {
            tracing::warn!(error = %e, "looking for files to read failed");
            return;
        }
    };
    for (file, blueprint) in due.into_iter().take(MAX_STARTED - started.len()) {
        let begun = Started {
            file: file.uuid.clone(),
            organisation: blueprint.organisation_uuid.clone(),
        };
        let (state, turns) = (state.clone(), turns.clone());
        let handle = readings.spawn(async move {
            let uuid = file.uuid.clone();
            match read_upload(&state, &turns, file, blueprint).await {
                Ok(true) => tracing::info!(file = %uuid, "bank file read"),
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(file = %uuid, error = %e, "reading an uploaded file failed")
                }
            }
        });
        started.insert(handle.id(), begun);
    }
}

fn finished(started: &mut HashMap<Id, Started>, done: Result<(Id, ()), tokio::task::JoinError>) {
    let id = match done {
        Ok((id, ())) => id,
        Err(e) => {
            tracing::warn!(error = %e, "reading a file stopped");
            e.id()
        }
    };
    started.remove(&id);
}
