//! Taking due tasks for sending.

use std::collections::{BTreeMap, HashMap};

use coffer_store::{Db, StoreError};
use diesel::QueryResult;
use uuid::Uuid;

use crate::deliveries::domain::log::{self, UNANSWERED, WebhookResponse};
use crate::deliveries::domain::request::{self, Outgoing};
use crate::deliveries::domain::share::Share;
use crate::deliveries::domain::task::{Task, TaskState, lease_ms};
use crate::deliveries::store::{responses, tasks};
use crate::endpoints::domain::Endpoint;
use crate::endpoints::store as endpoints;
use crate::state::NotificationsState;

/// A try to make: its task (with the try counted), its log entry as it begins (already
/// written), its request, and the endpoint as claimed (its keys open, to sign again).
#[derive(Debug, Clone)]
pub struct Job {
    pub task: Task,
    pub entry: WebhookResponse,
    pub request: Outgoing,
    pub endpoint: Endpoint,
}

impl Job {
    /// Signs the request again for `now` (Unix seconds) when the try is made later than
    /// the second it was claimed in (the sender claims an endpoint's next tries before a
    /// slot frees), so `webhook-timestamp` and the log's `sent_at` say when it was sent.
    pub fn restamp(&mut self, now: i64) {
        if now == self.entry.sent_at {
            return;
        }
        self.request = request::build(&self.task.event_uuid, &self.task.body, &self.endpoint, now);
        self.entry.sent_at = now;
        self.entry.request_headers = request::logged_headers(&self.request.headers);
    }
}

/// Endpoints listed per read at most, while a claim looks for ones it may take from.
const LISTED_AT_MOST: usize = 256;

/// Takes due tasks as `share` allows: up to its room in all, and for each endpoint and each
/// organisation up to its cap counting the tries this sender already holds (a held try
/// waits for a slot of its endpoint and of its organisation, and its lease allows for the
/// wait). Tasks whose endpoint is gone or off are dropped instead. A handful of
/// statements, however many are taken.
pub(crate) async fn claim(
    state: &NotificationsState,
    share: Share,
) -> Result<Vec<Job>, StoreError> {
    if share.room() == 0 {
        return Ok(Vec::new());
    }
    let secrets = state.secrets.clone();
    let now_ms = state.clock.unix_ms();
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let picked = pick(tx, share, now_ms)?;
                // Each endpoint is read (and its secrets opened) once per claim.
                let mut endpoints_seen: HashMap<String, Option<Endpoint>> = HashMap::new();
                let (mut jobs, mut dropped) = (Vec::new(), Vec::new());
                let mut leases: BTreeMap<i64, Vec<String>> = BTreeMap::new();
                for (mut task, lease) in picked {
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
                            leases.entry(lease).or_default().push(task.uuid.clone());
                            jobs.push(begin(task, endpoint, now_ms));
                        }
                        _ => dropped.push(task.uuid),
                    }
                }
                tasks::settle_many(tx, &dropped, TaskState::Dropped, now_ms)?;
                for (lease, begun) in leases {
                    tasks::begin_tries(tx, &begun, lease, now_ms)?;
                }
                let entries: Vec<WebhookResponse> = jobs.iter().map(|j| j.entry.clone()).collect();
                responses::insert_many(tx, &entries)?;
                Ok(jobs)
            })
        })
        .await
}

/// The due tasks to take, each with its lease: endpoint by endpoint, each up to what
/// `share` leaves it, so an endpoint or organisation at its cap is passed over without its
/// backlog being read. From a random point of the uuids round to it again, so that no
/// endpoint is always served last when there is more work than room.
fn pick(tx: &mut Db<'_>, mut share: Share, now_ms: i64) -> QueryResult<Vec<(Task, i64)>> {
    let limits = share.limits();
    let start = Uuid::new_v4().to_string();
    let mut after = start.clone();
    let mut wrapped = false;
    let mut picked: Vec<(Task, i64)> = Vec::new();
    while share.room() > 0 {
        let listed = (share.room() + share.passed_over()).min(LISTED_AT_MOST);
        let order = tasks::endpoints_due(tx, now_ms, &after, i64::try_from(listed).unwrap_or(1))?;
        let last_read = order.len() < listed;
        for (endpoint, organisation) in order {
            if wrapped && endpoint > start {
                return Ok(picked);
            }
            after.clone_from(&endpoint);
            let free = share.free(&endpoint, &organisation);
            if free == 0 {
                continue;
            }
            let (by_endpoint, by_organisation) = share.held(&endpoint, &organisation);
            let due = tasks::due_of(tx, &endpoint, now_ms, i64::try_from(free).unwrap_or(1))?;
            share.take(&endpoint, &organisation, due.len());
            // Each task with its lease: how many of its endpoint's and its organisation's
            // tries are held before it decides how long it may wait.
            picked.extend(due.into_iter().enumerate().map(|(i, task)| {
                let rounds = limits.rounds(by_endpoint + i, by_organisation + i);
                (task, now_ms.saturating_add(lease_ms(rounds)))
            }));
            if share.room() == 0 {
                break;
            }
        }
        if last_read {
            if wrapped {
                break;
            }
            wrapped = true;
            after.clear();
        }
    }
    Ok(picked)
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
        endpoint: endpoint.clone(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn job(claimed_at: i64) -> Job {
        let endpoint = Endpoint {
            uuid: "e".into(),
            organisation_uuid: "o".into(),
            account_uuid: None,
            alias: None,
            endpoint: "https://crm.example.org/hooks".into(),
            username: None,
            password: None,
            hmac_key: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into(),
            previous_hmac_key: None,
            enabled: true,
            disabled_reason: None,
            created: 0,
        };
        let task = Task {
            uuid: "t".into(),
            event_uuid: "ev".into(),
            event_name: "coffer.event.payment_gateway.payment.succeeded".into(),
            endpoint_uuid: "e".into(),
            organisation_uuid: "o".into(),
            account_uuid: None,
            object_uuid: "p".into(),
            body: "{}".into(),
            state: TaskState::Pending,
            tries: 1,
            max_tries: 8,
            due_ms: 0,
        };
        begin(task, &endpoint, claimed_at * 1000)
    }

    fn timestamp(job: &Job) -> &str {
        job.request
            .headers
            .iter()
            .find(|(n, _)| *n == "webhook-timestamp")
            .map(|(_, v)| v.as_str())
            .unwrap()
    }

    #[test]
    fn a_try_made_after_its_claim_is_signed_and_logged_for_when_it_is_made() {
        let mut same_second = job(100);
        same_second.restamp(100);
        assert_eq!(same_second.request, job(100).request);

        let mut later = job(100);
        later.restamp(107);
        assert_eq!(timestamp(&later), "107");
        assert_eq!(later.entry.sent_at, 107);
        assert_eq!(
            later.request,
            request::build("ev", "{}", &later.endpoint, 107)
        );
        assert!(later.entry.request_headers.contains("\"107\""));
    }
}
