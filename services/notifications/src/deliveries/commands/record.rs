//! Recording tries' answers, and what follows from each: the task delivered, scheduled
//! again or failed; the endpoint healthy, failing, or turned off and announced.

use coffer_events::catalogue::WEBHOOK_ENDPOINT_DISABLED;
use coffer_events::{Outbox, OutboxEvent};
use coffer_secrets::Secrets;
use coffer_store::{Db, StoreError};

use super::attempt::Done;
use crate::deliveries::domain::schedule::JITTER_PERMILLE;
use crate::deliveries::domain::task::TaskState;
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
        .run(move |db| {
            db.write_tx(|tx| {
                let mut announced = false;
                for (d, jitter) in done.iter().zip(jitters) {
                    announced |= one(tx, &secrets, &outbox, d, jitter, now_ms)?;
                }
                Ok::<_, StoreError>(announced)
            })
        })
        .await?;
    if announced {
        state.outbox.committed();
    }
    Ok(())
}

/// Records one answer; true when it turned its endpoint off and said so.
fn one(
    tx: &mut Db<'_>,
    secrets: &Secrets,
    outbox: &Outbox,
    d: &Done,
    jitter: i64,
    now_ms: i64,
) -> Result<bool, StoreError> {
    let Some(mut entry) = responses::find(tx, &d.try_uuid)? else {
        return Ok(false);
    };
    entry.answered = true;
    entry.error = !matches!(d.answer.status, Some(200..=299));
    entry.status_code = d.answer.status.map_or(0, i32::from);
    entry.reason_phrase.clone_from(&d.reason_phrase);
    entry.error_message.clone_from(&d.error_message);
    entry.response_time = d.response_time;
    entry.response_headers.clone_from(&d.response_headers);
    entry.response_body.clone_from(&d.response_body);
    let task = tasks::find(tx, &d.task_uuid)?;
    // A try whose lease ran out before its answer came has been claimed again: the later
    // try decides what follows, this one is only logged.
    let Some(task) = task.filter(|t| {
        t.state == TaskState::Pending && t.current_try.as_deref() == Some(d.try_uuid.as_str())
    }) else {
        responses::complete(tx, &entry)?;
        return Ok(false);
    };
    let Some(failing_since) = endpoints::failing_since(tx, &task.endpoint_uuid)? else {
        // The endpoint went during the try: nothing follows it.
        tasks::settle(tx, &task.uuid, TaskState::Dropped, now_ms, now_ms)?;
        entry.do_not_retry = true;
        responses::complete(tx, &entry)?;
        return Ok(false);
    };
    let (next, endpoint) = verdict::judge(
        d.answer,
        task.tries,
        task.max_tries,
        jitter,
        failing_since,
        now_ms,
    );
    match next {
        TaskNext::Delivered => tasks::settle(tx, &task.uuid, TaskState::Delivered, now_ms, now_ms)?,
        TaskNext::RetryAt(at) => tasks::settle(tx, &task.uuid, TaskState::Pending, at, now_ms)?,
        TaskNext::Failed => {
            entry.do_not_retry = true;
            tasks::settle(tx, &task.uuid, TaskState::Failed, now_ms, now_ms)?;
        }
    }
    responses::complete(tx, &entry)?;
    match endpoint {
        EndpointNext::Healthy if failing_since.is_some() => {
            endpoints::set_failing_since(tx, &task.endpoint_uuid, None)?
        }
        EndpointNext::Failing(since) if failing_since != Some(since) => {
            endpoints::set_failing_since(tx, &task.endpoint_uuid, Some(since))?;
        }
        EndpointNext::Disable(reason) => {
            let turned_off =
                endpoints::disable(tx, &task.endpoint_uuid, reason, now_ms.div_euclid(1000))?;
            // Notifications' own events announce nothing when they fail, so an endpoint
            // subscribed to them cannot feed itself.
            if turned_off && !task.is_own_event() {
                announce(tx, secrets, outbox, &task.endpoint_uuid)?;
                return Ok(true);
            }
        }
        _ => {}
    }
    Ok(false)
}

fn announce(
    tx: &mut Db<'_>,
    secrets: &Secrets,
    outbox: &Outbox,
    uuid: &str,
) -> Result<(), StoreError> {
    let Some(endpoint) = endpoints::find(tx, secrets, uuid)? else {
        return Ok(());
    };
    let parse = |raw: &str| raw.parse::<uuid::Uuid>().ok();
    let data = serde_json::to_value(endpoint.item())
        .map_err(|e| StoreError::from(diesel::result::Error::SerializationError(Box::new(e))))?;
    let event: OutboxEvent = outbox.event(
        &WEBHOOK_ENDPOINT_DISABLED,
        parse(&endpoint.uuid).unwrap_or_default(),
        parse(&endpoint.organisation_uuid),
        endpoint.account_uuid.as_deref().and_then(parse),
        data,
    );
    coffer_events::append(tx, &[event], None)?;
    Ok(())
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
