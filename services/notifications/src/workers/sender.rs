//! The sender: claims due tasks as room allows, makes each try on its own task (so a slow
//! or dead endpoint holds up only its own tries, at most `max_in_flight_per_endpoint` at
//! once, and an organisation's endpoints together at most
//! `max_in_flight_per_organisation`), and hands the answers to a recorder that writes them
//! many to a transaction.
//!
//! Each endpoint's and organisation's next tries are claimed before their slots free (up
//! to `AHEAD` times their limits; `domain::share`), and wait in the process for a slot: a
//! busy endpoint's next try then starts as soon as one ends, instead of after a claim's
//! round trip to the database. An organisation whose endpoints hang holds its own slots
//! and room, and the rest of the process's serve the others.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix_web::web;
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio::time::Instant;

use crate::deliveries::commands::attempt::{Done, attempt};
use crate::deliveries::commands::claim::Job;
use crate::deliveries::commands::{claim, record, still_on};
use crate::deliveries::domain::share::{Capped, Limits, Share};
use crate::state::NotificationsState;

/// Tasks claimed in one transaction at most.
const CLAIM_AT_MOST: usize = 200;
/// Answers recorded in one transaction at most.
const RECORD_AT_MOST: usize = 500;
/// How often the sender looks without being woken: tasks scheduled for later fall due
/// without anyone saying so.
const POLL: Duration = Duration::from_millis(100);
/// Tries held per endpoint, per organisation and in all, as a multiple of those allowed in
/// flight. A try held behind full rounds of its endpoint's or its organisation's slots has
/// its lease lengthened by a try's time per round (`task::lease_ms`). A wait for the
/// process's slots is not counted (organisations' caps keep it short unless several have
/// endpoints that hang): a try that outwaits its lease may be made twice, with the same
/// `webhook-id`, as after a crash.
const AHEAD: usize = 3;

/// How long (ms, on the service's clock) an endpoint's standing is trusted before a try
/// that waited for a slot asks again whether the endpoint is still on. A claim vouches
/// for the endpoints of what it took.
const TRUST_MS: i64 = 1_000;

/// Tries claimed and not yet answered (waiting for a slot or in flight), in all, by
/// endpoint and by organisation, with the slots of each that is busy, and when each
/// endpoint was last known to be on or off.
#[derive(Default)]
struct Held {
    total: usize,
    by_endpoint: HashMap<String, (usize, Arc<Semaphore>)>,
    by_organisation: HashMap<String, (usize, Arc<Semaphore>)>,
    standing: HashMap<String, (i64, bool)>,
}

/// One held try's slots: its endpoint's and its organisation's.
struct Slots {
    endpoint: Arc<Semaphore>,
    organisation: Arc<Semaphore>,
}

/// Counts one more held under `key`, and gives the slots it waits for.
fn hold(
    by: &mut HashMap<String, (usize, Arc<Semaphore>)>,
    key: &str,
    slots: usize,
) -> Arc<Semaphore> {
    let (n, sem) = by
        .entry(key.to_owned())
        .or_insert_with(|| (0, Arc::new(Semaphore::new(slots))));
    *n += 1;
    Arc::clone(sem)
}

/// Counts one fewer held under `key`; true when none is left.
fn let_go(by: &mut HashMap<String, (usize, Arc<Semaphore>)>, key: &str) -> bool {
    let Some((n, _)) = by.get_mut(key) else {
        return false;
    };
    *n -= 1;
    if *n > 0 {
        return false;
    }
    by.remove(key);
    true
}

impl Held {
    /// Counts a try of `endpoint` (of `organisation`) as held, and gives its slots.
    fn take(&mut self, endpoint: &str, organisation: &str, limits: Limits) -> Slots {
        self.total += 1;
        Slots {
            endpoint: hold(&mut self.by_endpoint, endpoint, limits.endpoint_slots),
            organisation: hold(
                &mut self.by_organisation,
                organisation,
                limits.organisation_slots,
            ),
        }
    }

    fn release(&mut self, endpoint: &str, organisation: &str) {
        self.total -= 1;
        if let_go(&mut self.by_endpoint, endpoint) {
            self.standing.remove(endpoint);
        }
        let_go(&mut self.by_organisation, organisation);
    }

    /// What is held, as a claim shares out `room` more.
    fn share(&self, room: usize, limits: Limits) -> Share {
        let counts = |by: &HashMap<String, (usize, Arc<Semaphore>)>| {
            by.iter().map(|(k, (n, _))| (k.clone(), *n)).collect()
        };
        Share::new(
            room,
            limits,
            counts(&self.by_endpoint),
            counts(&self.by_organisation),
        )
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
    let limits = Limits {
        endpoint_slots: state.max_in_flight_per_endpoint,
        organisation_slots: state.max_in_flight_per_organisation,
        ahead: AHEAD,
    };
    let held = Arc::new(Mutex::new(Held::default()));
    // Tries in flight in all; a held try takes its endpoint's slot and its organisation's,
    // then one of these.
    let running = Arc::new(Semaphore::new(state.max_in_flight));
    let freed = Arc::new(Notify::new());
    // A claim is owed: tasks were made, time passed, or the last claim ran out of room.
    let mut look = true;
    let mut next_look = Instant::now();
    // Endpoints and organisations at their cap after the last claim: they may have more due.
    let mut capped = Capped::default();
    loop {
        let woken = state.wake.notified();
        let slot = freed.notified();
        let share = {
            let h = held.lock().unwrap_or_else(PoisonError::into_inner);
            let room = (state.max_in_flight * AHEAD)
                .saturating_sub(h.total)
                .min(CLAIM_AT_MOST);
            h.share(room, limits)
        };
        let room = share.room();
        if room == 0 || !(look || share.refill(&capped)) {
            // Only tries have ended, and every endpoint and organisation still holds
            // enough for its slots.
            tokio::select! {
                () = woken => look = true,
                () = slot => {}
                () = tokio::time::sleep_until(next_look) => look = true,
            }
            continue;
        }
        let jobs = match claim::claim(&state, share.clone()).await {
            Ok(jobs) => jobs,
            Err(e) => {
                tracing::warn!(error = %e, "claiming deliveries failed; retrying");
                Vec::new()
            }
        };
        // Fewer than there was room for: nothing more is due, or the endpoints that have
        // due tasks (or their organisations) are at their cap. Look again when something is
        // made or comes due, or when one at its cap has room for several.
        look = jobs.len() == room;
        next_look = Instant::now() + POLL;
        // At their cap as the claim saw it: the claim may have left more due. (Counted
        // from the claim's own view, since tries go on ending while it runs.)
        let mut reached = share;
        for job in &jobs {
            reached.take(&job.task.endpoint_uuid, &job.task.organisation_uuid, 1);
        }
        capped = reached.capped();
        let claimed_at = state.clock.unix_ms();
        let mut h = held.lock().unwrap_or_else(PoisonError::into_inner);
        for job in jobs {
            let slots = h.take(&job.task.endpoint_uuid, &job.task.organisation_uuid, limits);
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
    /// Waits for a slot of the job's endpoint, one of its organisation's and one of the
    /// process's, makes the try, and hands its answer on. Tokio's semaphores are fair, so
    /// an endpoint's tries start in the order they were claimed.
    async fn run(self, mut job: Job, slots: Slots, running: Arc<Semaphore>) {
        // The semaphores are never closed, so a permit always comes.
        let endpoint_slot = slots.endpoint.acquire_owned().await;
        let organisation_slot = slots.organisation.acquire_owned().await;
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
        drop(organisation_slot);
        drop(endpoint_slot);
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .release(&job.task.endpoint_uuid, &job.task.organisation_uuid);
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
