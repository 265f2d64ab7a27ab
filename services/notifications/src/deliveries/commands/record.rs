//! Recording tries' answers, and what follows from each: the task delivered, scheduled
//! again or failed; the endpoint healthy, failing, or turned off and announced. A batch of
//! answers takes a handful of statements: what they change is worked out in memory first,
//! and the tries' log entries (written when each try began, and carried with it) are
//! completed in one statement without being read back.

use std::collections::HashMap;

use coffer_events::Outbox;
use coffer_secrets::Secrets;
use coffer_store::{Db, StoreError};

use super::attempt::Done;
use crate::deliveries::domain::log::WebhookResponse;
use crate::deliveries::domain::schedule::JITTER_PERMILLE;
use crate::deliveries::domain::task::{Standing, TaskState};
use crate::deliveries::domain::verdict::{self, Endpoint as EndpointNext, Task as TaskNext};
use crate::deliveries::store::{responses, tasks};
use crate::endpoints::store as endpoints;
use crate::state::NotificationsState;

/// Records every answer of `done` in one transaction.
pub(crate) async fn record(state: &NotificationsState, done: Vec<Done>) -> Result<(), StoreError> {
    let (secrets, outbox) = (state.secrets.clone(), state.outbox.clone());
    let now_ms = state.clock.unix_ms();
    let jitters: Vec<i64> = done.iter().map(|_| jitter()).collect();
    let announced = state
        .store
        .run(move |db| db.write_tx(|tx| all(tx, &secrets, &outbox, &done, &jitters, now_ms)))
        .await?;
    if announced {
        state.outbox.committed();
    }
    Ok(())
}

/// What a batch of answers changes, gathered before anything is written.
#[derive(Default)]
struct Changes {
    entries: Vec<WebhookResponse>,
    settled: HashMap<TaskState, Vec<String>>,
    retries: Vec<(String, i64)>,
    /// Endpoints whose `failing_since` changes, to what.
    failing: HashMap<String, Option<i64>>,
    /// Endpoints to turn off, why, and whether to say so.
    disable: Vec<(String, &'static str, bool)>,
    /// Log entries of tries let go before they were made.
    unmade: Vec<String>,
}

/// Records the answers of `done`; true when an endpoint was turned off and announced.
fn all(
    tx: &mut Db<'_>,
    secrets: &Secrets,
    outbox: &Outbox,
    done: &[Done],
    jitters: &[i64],
    now_ms: i64,
) -> Result<bool, StoreError> {
    let task_uuids: Vec<String> = done.iter().map(|d| d.task_uuid.clone()).collect();
    let found: HashMap<String, Standing> = tasks::standing_many(tx, &task_uuids)?
        .into_iter()
        .map(|t| (t.uuid.clone(), t))
        .collect();
    let endpoint_uuids: Vec<String> = done.iter().map(|d| d.endpoint_uuid.clone()).collect();
    // Each endpoint's standing as the batch goes: a later answer sees an earlier one's.
    let mut failing: HashMap<String, Option<i64>> =
        endpoints::failing_since_many(tx, &endpoint_uuids)?
            .into_iter()
            .collect();
    let mut changes = Changes::default();
    for (d, jitter) in done.iter().zip(jitters) {
        // Only the try last begun decides what follows; one whose lease ran out before its
        // answer came is only logged.
        let current = found
            .get(&d.task_uuid)
            .filter(|t| t.state == TaskState::Pending && t.tries == d.try_number);
        if !d.made {
            // Its endpoint was turned off or deleted while it waited: no try to log, and
            // its task is dropped as a claim would drop it.
            changes.unmade.push(d.entry.uuid.clone());
            if let Some(task) = current {
                changes
                    .settled
                    .entry(TaskState::Dropped)
                    .or_default()
                    .push(task.uuid.clone());
            }
            continue;
        }
        let mut entry = d.entry.clone();
        answer(&mut entry, d);
        if let Some(task) = current {
            decide(
                &mut changes,
                &mut failing,
                task,
                d,
                &mut entry,
                *jitter,
                now_ms,
            );
        }
        changes.entries.push(entry);
    }
    write(tx, secrets, outbox, changes, now_ms)
}

fn answer(entry: &mut WebhookResponse, d: &Done) {
    entry.answered = true;
    entry.error = !matches!(d.answer.status, Some(200..=299));
    entry.status_code = d.answer.status.map_or(0, i32::from);
    entry.reason_phrase.clone_from(&d.reason_phrase);
    entry.error_message.clone_from(&d.error_message);
    entry.response_time = d.response_time;
    entry.response_headers.clone_from(&d.response_headers);
    entry.response_body.clone_from(&d.response_body);
}

fn decide(
    changes: &mut Changes,
    failing: &mut HashMap<String, Option<i64>>,
    task: &Standing,
    d: &Done,
    entry: &mut WebhookResponse,
    jitter: i64,
    now_ms: i64,
) {
    let endpoint = &task.endpoint_uuid;
    let Some(since) = failing.get(endpoint).copied() else {
        // The endpoint went during the try: nothing follows it.
        changes
            .settled
            .entry(TaskState::Dropped)
            .or_default()
            .push(task.uuid.clone());
        entry.do_not_retry = true;
        return;
    };
    let (next, standing) =
        verdict::judge(d.answer, task.tries, task.max_tries, jitter, since, now_ms);
    match next {
        TaskNext::Delivered => changes
            .settled
            .entry(TaskState::Delivered)
            .or_default()
            .push(task.uuid.clone()),
        TaskNext::RetryAt(at) => changes.retries.push((task.uuid.clone(), at)),
        TaskNext::Failed => {
            entry.do_not_retry = true;
            changes
                .settled
                .entry(TaskState::Failed)
                .or_default()
                .push(task.uuid.clone());
        }
    }
    let now = match standing {
        EndpointNext::Healthy => None,
        EndpointNext::Failing(from) => Some(from),
        EndpointNext::Disable(reason) => {
            // Notifications' own events announce nothing when they fail, so an endpoint
            // subscribed to them cannot feed itself.
            changes
                .disable
                .push((endpoint.clone(), reason, !task.is_own_event()));
            None
        }
    };
    if since != now {
        failing.insert(endpoint.clone(), now);
        changes.failing.insert(endpoint.clone(), now);
    }
}

fn write(
    tx: &mut Db<'_>,
    secrets: &Secrets,
    outbox: &Outbox,
    changes: Changes,
    now_ms: i64,
) -> Result<bool, StoreError> {
    responses::complete_many(tx, &changes.entries)?;
    responses::delete_many(tx, &changes.unmade)?;
    for (state, uuids) in &changes.settled {
        tasks::settle_many(tx, uuids, *state, now_ms)?;
    }
    for (uuid, at) in &changes.retries {
        tasks::settle(tx, uuid, TaskState::Pending, *at, now_ms)?;
    }
    for (endpoint, since) in &changes.failing {
        endpoints::set_failing_since(tx, endpoint, *since)?;
    }
    let mut announced = false;
    for (endpoint, reason, announce_it) in &changes.disable {
        let turned_off = endpoints::disable(tx, endpoint, reason, now_ms.div_euclid(1000))?;
        if turned_off && *announce_it {
            crate::endpoints::events::disabled(tx, secrets, outbox, endpoint)?;
            announced = true;
        }
    }
    Ok(announced)
}

/// A random jitter within ±[`JITTER_PERMILLE`], so failures together come back apart.
fn jitter() -> i64 {
    let mut byte = [0_u8; 2];
    if aws_lc_rs::rand::fill(&mut byte).is_err() {
        return 0;
    }
    let spread = 2 * JITTER_PERMILLE + 1;
    i64::from(u16::from_le_bytes(byte)) % spread - JITTER_PERMILLE
}
