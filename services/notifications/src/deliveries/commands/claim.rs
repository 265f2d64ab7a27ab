//! Taking due tasks for sending.

use std::collections::HashMap;

use coffer_store::{Db, StoreError};
use uuid::Uuid;

use crate::deliveries::domain::log::{self, UNANSWERED, WebhookResponse};
use crate::deliveries::domain::request::{self, Outgoing};
use crate::deliveries::domain::task::{LEASE_MS, Task, TaskState};
use crate::deliveries::store::{responses, tasks};
use crate::endpoints::domain::Endpoint;
use crate::endpoints::store as endpoints;
use crate::state::NotificationsState;

/// A try to make: its task (with the try counted), its log entry and its request.
#[derive(Debug, Clone)]
pub struct Job {
    pub task: Task,
    pub try_uuid: String,
    pub request: Outgoing,
}

/// Takes up to `room` due tasks, leaving each endpoint at most `per_endpoint` tries in
/// flight counting `busy` (the tries already in flight, by endpoint). Tasks whose endpoint
/// is gone or off are dropped instead.
pub(crate) async fn claim(
    state: &NotificationsState,
    room: usize,
    busy: HashMap<String, usize>,
    per_endpoint: usize,
) -> Result<Vec<Job>, StoreError> {
    if room == 0 {
        return Ok(Vec::new());
    }
    let secrets = state.secrets.clone();
    let now_ms = state.clock.unix_ms();
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let full: Vec<String> = busy
                    .iter()
                    .filter(|(_, n)| **n >= per_endpoint)
                    .map(|(e, _)| e.clone())
                    .collect();
                let due = tasks::due(tx, now_ms, &full, i64::try_from(room).unwrap_or(i64::MAX))?;
                let mut taken: HashMap<String, usize> = busy;
                let mut picked = Vec::new();
                for (uuid, endpoint) in due {
                    let count = taken.entry(endpoint).or_default();
                    if *count < per_endpoint {
                        *count += 1;
                        picked.push(uuid);
                    }
                }
                // Each endpoint is read (and its secrets opened) once per claim.
                let mut endpoints_seen: HashMap<String, Option<Endpoint>> = HashMap::new();
                let mut jobs = Vec::new();
                for task in tasks::find_many(tx, &picked)? {
                    let endpoint = match endpoints_seen.get(&task.endpoint_uuid) {
                        Some(known) => known.clone(),
                        None => {
                            let found = endpoints::find(tx, &secrets, &task.endpoint_uuid)?;
                            endpoints_seen.insert(task.endpoint_uuid.clone(), found.clone());
                            found
                        }
                    };
                    if let Some(job) = begin(tx, task, endpoint, now_ms)? {
                        jobs.push(job);
                    }
                }
                Ok(jobs)
            })
        })
        .await
}

/// Begins a try of one task, or drops the task when its endpoint is gone or off.
fn begin(
    tx: &mut Db<'_>,
    mut task: Task,
    endpoint: Option<Endpoint>,
    now_ms: i64,
) -> Result<Option<Job>, StoreError> {
    let uuid = task.uuid.clone();
    let uuid = uuid.as_str();
    let Some(endpoint) = endpoint.filter(|e| e.enabled) else {
        tasks::settle(tx, uuid, TaskState::Dropped, now_ms, now_ms)?;
        return Ok(None);
    };
    let now = now_ms.div_euclid(1000);
    let request = request::build(&task.event_uuid, &task.body, &endpoint, now);
    let try_uuid = Uuid::new_v4().to_string();
    responses::insert(
        tx,
        &WebhookResponse {
            uuid: try_uuid.clone(),
            task_uuid: task.uuid.clone(),
            organisation_uuid: task.organisation_uuid.clone(),
            account_uuid: task.account_uuid.clone(),
            webhook_configuration_uuid: task.endpoint_uuid.clone(),
            event_uuid: task.event_uuid.clone(),
            object_uuid: task.object_uuid.clone(),
            sent_at: now,
            answered: false,
            error: true,
            status_code: 0,
            reason_phrase: String::new(),
            error_message: Some(UNANSWERED.to_owned()),
            response_time: 0,
            do_not_retry: false,
            request_headers: request::logged_headers(&request.headers),
            request_body: log::cut(&request.body),
            response_headers: "{}".to_owned(),
            response_body: String::new(),
        },
    )?;
    tasks::begin_try(tx, uuid, &try_uuid, now_ms + LEASE_MS, now_ms)?;
    task.tries += 1;
    task.current_try = Some(try_uuid.clone());
    Ok(Some(Job {
        task,
        try_uuid,
        request,
    }))
}
