//! The sender: claims due tasks as room allows, makes each try on its own task (so a slow
//! or dead endpoint holds up only its own tries, at most `max_in_flight_per_endpoint` at
//! once), and hands the answers to a recorder that writes them many to a transaction.
//!
//! Each endpoint's next tries are claimed before its slots free (up to `AHEAD` times its
//! limit), and wait in the process for a slot: a busy endpoint's next try then starts as
//! soon as one ends, instead of after a claim's round trip to the database.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix_web::web;
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio::time::Instant;

use crate::deliveries::commands::attempt::{Done, attempt};
use crate::deliveries::commands::claim::Job;
use crate::deliveries::commands::{claim, record, still_on};
use crate::state::NotificationsState;

/// Tasks claimed in one transaction at most.
const CLAIM_AT_MOST: usize = 200;
/// Answers recorded in one transaction at most.
const RECORD_AT_MOST: usize = 500;
/// How often the sender looks without being woken: tasks scheduled for later fall due
/// without anyone saying so.
const POLL: Duration = Duration::from_millis(100);
/// Tries held per endpoint (and in all), as a multiple of those allowed in flight. A try
/// held behind full rounds of its endpoint's slots has its lease lengthened by a try's
/// time per round (`task::lease_ms`). A wait for the process's slots is not counted: a
/// try that outwaits its lease may be made twice, with the same `webhook-id`, as after a
/// crash.
const AHEAD: usize = 3;

/// How long (ms, on the service's clock) an endpoint's standing is trusted before a try
/// that waited for a slot asks again whether the endpoint is still on. A claim vouches
/// for the endpoints of what it took.
const TRUST_MS: i64 = 1_000;

/// Tries claimed and not yet answered (waiting for a slot or in flight), in all and by
/// endpoint, with each busy endpoint's slots, and when each was last known to be on or off.
#[derive(Default)]
struct Held {
    total: usize,
    by_endpoint: HashMap<String, (usize, Arc<Semaphore>)>,
    standing: HashMap<String, (i64, bool)>,
}

impl Held {
    /// Counts `job` as held, and gives the slots of its endpoint.
    fn take(&mut self, endpoint: &str, per_endpoint: usize) -> Arc<Semaphore> {
        self.total += 1;
        let (n, slots) = self
            .by_endpoint
            .entry(endpoint.to_owned())
            .or_insert_with(|| (0, Arc::new(Semaphore::new(per_endpoint))));
        *n += 1;
        Arc::clone(slots)
    }

    fn release(&mut self, endpoint: &str) {
        self.total -= 1;
        if let Some((n, _)) = self.by_endpoint.get_mut(endpoint) {
            *n -= 1;
            if *n == 0 {
                self.by_endpoint.remove(endpoint);
                self.standing.remove(endpoint);
            }
        }
    }

    /// Whether `endpoint` was known to be on at `now_ms`, if that is recent enough.
    fn known_on(&self, endpoint: &str, now_ms: i64) -> Option<bool> {
        self.standing
            .get(endpoint)
            .filter(|(at, _)| now_ms.saturating_sub(*at) < TRUST_MS)
            .map(|(_, on)| *on)
    }
}

pub(crate) async fn run_forever(state: web::Data<NotificationsState>) {
    let (answers, recorded) = mpsc::unbounded_channel::<Done>();
    tokio::spawn(record_forever(state.clone(), recorded));
    let per_endpoint = state.max_in_flight_per_endpoint;
    let cap = per_endpoint * AHEAD;
    // An endpoint held at its cap is claimed for again once it is down by this much, so a
    // busy endpoint costs a claim per several tries, not one per try.
    let refill_at = cap - (per_endpoint / 2).max(1);
    let held = Arc::new(Mutex::new(Held::default()));
    // Tries in flight in all; a held try takes its endpoint's slot, then one of these.
    let running = Arc::new(Semaphore::new(state.max_in_flight));
    let freed = Arc::new(Notify::new());
    // A claim is owed: tasks were made, time passed, or the last claim ran out of room.
    let mut look = true;
    let mut next_look = Instant::now();
    // Endpoints at their cap after the last claim: they may have more due.
    let mut capped: HashSet<String> = HashSet::new();
    loop {
        let woken = state.wake.notified();
        let slot = freed.notified();
        let (room, busy, refill) = {
            let h = held.lock().unwrap_or_else(PoisonError::into_inner);
            let busy: HashMap<String, usize> = h
                .by_endpoint
                .iter()
                .map(|(e, (n, _))| (e.clone(), *n))
                .collect();
            let refill = capped
                .iter()
                .any(|e| busy.get(e).copied().unwrap_or(0) <= refill_at);
            let room = (state.max_in_flight * AHEAD)
                .saturating_sub(h.total)
                .min(CLAIM_AT_MOST);
            (room, busy, refill)
        };
        if room == 0 || !(look || refill) {
            // Only tries have ended, and every endpoint still holds enough for its slots.
            tokio::select! {
                () = woken => look = true,
                () = slot => {}
                () = tokio::time::sleep_until(next_look) => look = true,
            }
            continue;
        }
        let jobs = match claim::claim(&state, room, busy.clone(), cap).await {
            Ok(jobs) => jobs,
            Err(e) => {
                tracing::warn!(error = %e, "claiming deliveries failed; retrying");
                Vec::new()
            }
        };
        // Fewer than there was room for: nothing more is due, or the endpoints that have
        // due tasks are at their cap. Look again when something is made or comes due, or
        // when a capped endpoint has room for several.
        look = jobs.len() == room;
        next_look = Instant::now() + POLL;
        // Held at its cap as the claim saw it: the claim may have left more due. (Counted
        // from the claim's own view, since tries go on ending while it runs.)
        let mut reached = busy;
        for job in &jobs {
            *reached.entry(job.task.endpoint_uuid.clone()).or_default() += 1;
        }
        capped = reached
            .into_iter()
            .filter(|(_, n)| *n >= cap)
            .map(|(e, _)| e)
            .collect();
        let claimed_at = state.clock.unix_ms();
        let mut h = held.lock().unwrap_or_else(PoisonError::into_inner);
        for job in jobs {
            let slots = h.take(&job.task.endpoint_uuid, per_endpoint);
            h.standing
                .insert(job.task.endpoint_uuid.clone(), (claimed_at, true));
            let try_it = Try {
                state: state.clone(),
                held: Arc::clone(&held),
                freed: Arc::clone(&freed),
                answers: answers.clone(),
            };
            tokio::spawn(try_it.run(job, slots, Arc::clone(&running)));
        }
    }
}

/// What a held try needs to be made and let go. A try that waited past [`TRUST_MS`] for
/// its slot first makes sure its endpoint is still on; if not, it is let go unmade.
struct Try {
    state: web::Data<NotificationsState>,
    held: Arc<Mutex<Held>>,
    freed: Arc<Notify>,
    answers: mpsc::UnboundedSender<Done>,
}

impl Try {
    /// Waits for a slot of the job's endpoint and one of the process's, makes the try, and
    /// hands its answer on. Tokio's semaphores are fair, so an endpoint's tries start in
    /// the order they were claimed.
    async fn run(self, mut job: Job, slots: Arc<Semaphore>, running: Arc<Semaphore>) {
        // The semaphores are never closed, so a permit always comes.
        let endpoint_slot = slots.acquire_owned().await;
        let done = if self.still_on(&job.task.endpoint_uuid).await {
            let process_slot = running.acquire_owned().await;
            let now = self.state.clock.unix();
            job.restamp(now);
            let s = &self.state;
            let done = attempt(&s.client, &s.addresses, &s.metrics, &job, now).await;
            drop(process_slot);
            done
        } else {
            Done::let_go(&job)
        };
        let _ = self.answers.send(done);
        drop(endpoint_slot);
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .release(&job.task.endpoint_uuid);
        self.freed.notify_one();
    }

    /// Whether the endpoint is still on: as last known if that is recent (a claim vouches
    /// for its endpoints), else asked. If the database cannot say, the try is made, as it
    /// would have been without asking.
    async fn still_on(&self, endpoint: &str) -> bool {
        let now_ms = self.state.clock.unix_ms();
        let known = self
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .known_on(endpoint, now_ms);
        if let Some(on) = known {
            return on;
        }
        let on = still_on::still_on(&self.state, endpoint)
            .await
            .unwrap_or(true);
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .standing
            .insert(endpoint.to_owned(), (now_ms, on));
        on
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
