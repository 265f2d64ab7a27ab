//! The sender: claims due tasks as room allows, makes each try on its own task (so a slow
//! or dead endpoint holds up only its own tries, at most `max_in_flight_per_endpoint` at
//! once), and hands the answers to a recorder that writes them many to a transaction.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix_web::web;
use tokio::sync::{Notify, mpsc};

use crate::deliveries::commands::attempt::{Done, attempt};
use crate::deliveries::commands::{claim, record};
use crate::state::NotificationsState;

/// Tasks claimed in one transaction at most.
const CLAIM_AT_MOST: usize = 200;
/// Answers recorded in one transaction at most.
const RECORD_AT_MOST: usize = 500;
/// How often the sender looks without being woken: tasks scheduled for later fall due
/// without anyone saying so.
const POLL: Duration = Duration::from_millis(100);

/// Tries in flight, in all and by endpoint.
#[derive(Default)]
struct InFlight {
    total: usize,
    by_endpoint: HashMap<String, usize>,
}

pub(crate) async fn run_forever(state: web::Data<NotificationsState>) {
    let (answers, recorded) = mpsc::unbounded_channel::<Done>();
    tokio::spawn(record_forever(state.clone(), recorded));
    let in_flight = Arc::new(Mutex::new(InFlight::default()));
    let freed = Arc::new(Notify::new());
    loop {
        let woken = state.wake.notified();
        let slot = freed.notified();
        let (room, busy) = {
            let f = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
            (
                state
                    .max_in_flight
                    .saturating_sub(f.total)
                    .min(CLAIM_AT_MOST),
                f.by_endpoint.clone(),
            )
        };
        if room == 0 {
            let _ = tokio::time::timeout(POLL, slot).await;
            continue;
        }
        let jobs = match claim::claim(&state, room, busy, state.max_in_flight_per_endpoint).await {
            Ok(jobs) => jobs,
            Err(e) => {
                tracing::warn!(error = %e, "claiming deliveries failed; retrying");
                Vec::new()
            }
        };
        let claimed = jobs.len();
        for job in jobs {
            {
                let mut f = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
                f.total += 1;
                *f.by_endpoint
                    .entry(job.task.endpoint_uuid.clone())
                    .or_default() += 1;
            }
            let (state, in_flight, freed, answers) = (
                state.clone(),
                Arc::clone(&in_flight),
                Arc::clone(&freed),
                answers.clone(),
            );
            tokio::spawn(async move {
                let now = state.clock.unix();
                let done =
                    attempt(&state.client, &state.addresses, &state.metrics, &job, now).await;
                let _ = answers.send(done);
                let mut f = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
                f.total -= 1;
                if let Some(n) = f.by_endpoint.get_mut(&job.task.endpoint_uuid) {
                    *n -= 1;
                    if *n == 0 {
                        f.by_endpoint.remove(&job.task.endpoint_uuid);
                    }
                }
                freed.notify_one();
            });
        }
        // Fewer than there was room for: nothing more is due, or the endpoints that have
        // due tasks are at their limit. Look again when something is made or comes due,
        // or when a try ends and frees its endpoint.
        if claimed < room {
            tokio::select! {
                () = woken => {}
                () = slot => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }
}

/// Writes answers as they come, all that are waiting in one transaction. One that cannot
/// be written is kept and tried again; if the process stops first, the task's lease runs
/// out and it is sent again.
async fn record_forever(
    state: web::Data<NotificationsState>,
    mut answers: mpsc::UnboundedReceiver<Done>,
) {
    while let Some(first) = answers.recv().await {
        let mut batch = vec![first];
        while batch.len() < RECORD_AT_MOST {
            match answers.try_recv() {
                Ok(done) => batch.push(done),
                Err(_) => break,
            }
        }
        loop {
            match record::record(&state, batch.clone()).await {
                Ok(()) => break,
                Err(e) => {
                    tracing::warn!(error = %e, answers = batch.len(), "recording answers failed; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    }
}
