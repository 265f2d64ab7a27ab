//! Taking due tasks for sending.

use std::collections::HashMap;

use coffer_store::StoreError;
use uuid::Uuid;

use crate::deliveries::domain::log::{self, UNANSWERED, WebhookResponse};
use crate::deliveries::domain::request::{self, Outgoing};
use crate::deliveries::domain::task::{LEASE_MS, Task, TaskState};
use crate::deliveries::store::{responses, tasks};
use crate::endpoints::domain::Endpoint;
use crate::endpoints::store as endpoints;
use crate::state::NotificationsState;

/// A try to make: its task (with the try counted), its log entry as it begins (already
/// written) and its request.
#[derive(Debug, Clone)]
pub struct Job {
    pub task: Task,
    pub entry: WebhookResponse,
    pub request: Outgoing,
}

/// Takes up to `room` due tasks, leaving each endpoint at most `per_endpoint` tries in
/// flight counting `busy` (the tries already in flight, by endpoint). Tasks whose endpoint
/// is gone or off are dropped instead. A handful of statements, however many are taken.
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
                // Endpoint by endpoint, each up to its room: a saturated endpoint's backlog
                // is not read at all.
                let full = busy.values().filter(|n| **n >= per_endpoint).count();
                let listed = i64::try_from(room + full).unwrap_or(i64::MAX);
                // From a random point of the uuids round to it again, so that no endpoint
                // is always served last when there is more work than room.
                let start = Uuid::new_v4().to_string();
                let mut order = tasks::endpoints_due(tx, now_ms, &start, listed)?;
                if order.len() < usize::try_from(listed).unwrap_or(usize::MAX) {
                    let wrapped = tasks::endpoints_due(tx, now_ms, "", listed)?;
                    order.extend(wrapped.into_iter().take_while(|e| *e <= start));
                }
                let mut picked: Vec<Task> = Vec::new();
                for endpoint in order {
                    let left = room - picked.len();
                    if left == 0 {
                        break;
                    }
                    let free =
                        per_endpoint.saturating_sub(busy.get(&endpoint).copied().unwrap_or(0));
                    if free == 0 {
                        continue;
                    }
                    let take = i64::try_from(free.min(left)).unwrap_or(i64::MAX);
                    picked.extend(tasks::due_of(tx, &endpoint, now_ms, take)?);
                }
                // Each endpoint is read (and its secrets opened) once per claim.
                let mut endpoints_seen: HashMap<String, Option<Endpoint>> = HashMap::new();
                let (mut jobs, mut dropped) = (Vec::new(), Vec::new());
                for mut task in picked {
                    if !endpoints_seen.contains_key(&task.endpoint_uuid) {
                        let found = endpoints::find(tx, &secrets, &task.endpoint_uuid)?;
                        endpoints_seen.insert(task.endpoint_uuid.clone(), found);
                    }
                    match endpoints_seen
                        .get(&task.endpoint_uuid)
                        .and_then(Option::as_ref)
                    {
                        Some(endpoint) if endpoint.enabled => {
                            task.tries += 1;
                            jobs.push(begin(task, endpoint, now_ms));
                        }
                        _ => dropped.push(task.uuid),
                    }
                }
                tasks::settle_many(tx, &dropped, TaskState::Dropped, now_ms)?;
                let begun: Vec<String> = jobs.iter().map(|j: &Job| j.task.uuid.clone()).collect();
                tasks::begin_tries(tx, &begun, now_ms + LEASE_MS, now_ms)?;
                let entries: Vec<WebhookResponse> = jobs.iter().map(|j| j.entry.clone()).collect();
                responses::insert_many(tx, &entries)?;
                Ok(jobs)
            })
        })
        .await
}

/// A try of `task` (its count already the try's) to `endpoint`, with its log entry as it
/// begins.
fn begin(task: Task, endpoint: &Endpoint, now_ms: i64) -> Job {
    let now = now_ms.div_euclid(1000);
    let request = request::build(&task.event_uuid, &task.body, endpoint, now);
    let entry = WebhookResponse {
        uuid: Uuid::new_v4().to_string(),
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
    };
    Job {
        task,
        entry,
        request,
    }
}
