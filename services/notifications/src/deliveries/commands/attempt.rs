//! Making one try: the only step that leaves the process, with no transaction open.

use std::time::Instant;

use coffer_http::address_policy::AddressPolicy;

use crate::deliveries::connect;
use crate::deliveries::domain::log::{MAX_BODY_BYTES, WebhookResponse};
use crate::deliveries::domain::schedule;
use crate::deliveries::domain::verdict::Answer;
use crate::deliveries::metrics::DeliveryMetrics;

use super::claim::Job;

/// How a try ended, for `record`.
#[derive(Debug, Clone)]
pub struct Done {
    pub task_uuid: String,
    /// The try's log entry as it was written when the try began.
    pub entry: WebhookResponse,
    /// Which try of its task this was (the first is 1).
    pub try_number: i32,
    pub endpoint_uuid: String,
    pub answer: Answer,
    pub reason_phrase: String,
    pub error_message: Option<String>,
    /// Milliseconds.
    pub response_time: i64,
    pub response_headers: String,
    pub response_body: String,
    /// False for a try let go before it was made (its endpoint was turned off or deleted
    /// while the try waited for a slot): nothing was sent, and nothing is logged.
    pub made: bool,
}

impl Done {
    /// A held try let go unmade.
    pub fn let_go(job: &Job) -> Done {
        Done::unanswered(job, false)
    }

    /// `job`'s outcome before any answer: what a try that gets none keeps.
    fn unanswered(job: &Job, made: bool) -> Done {
        Done {
            task_uuid: job.task.uuid.clone(),
            entry: job.entry.clone(),
            try_number: job.task.tries,
            endpoint_uuid: job.task.endpoint_uuid.clone(),
            answer: Answer {
                status: None,
                retry_after: None,
            },
            reason_phrase: String::new(),
            error_message: None,
            response_time: 0,
            response_headers: "{}".to_owned(),
            response_body: String::new(),
            made,
        }
    }
}

/// Sends `job` and reads at most the logged part of the answer.
pub(crate) async fn attempt(
    client: &reqwest::Client,
    policy: &AddressPolicy,
    metrics: &DeliveryMetrics,
    job: &Job,
    now: i64,
) -> Done {
    let started = Instant::now();
    let mut done = Done::unanswered(job, true);
    match send(client, policy, job).await {
        Ok(mut res) => {
            let status = res.status();
            done.answer.status = Some(status.as_u16());
            done.reason_phrase = status.canonical_reason().unwrap_or_default().to_owned();
            done.answer.retry_after = res
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| schedule::retry_after(v, now));
            done.response_headers = headers_json(res.headers());
            match read_some(&mut res).await {
                Ok(body) => done.response_body = body,
                Err(e) => {
                    done.error_message = Some(format!(
                        "the answer's body could not be read: {}",
                        describe(&e)
                    ))
                }
            }
            if !status.is_success() {
                done.error_message
                    .get_or_insert_with(|| format!("the endpoint answered {status}"));
            }
        }
        Err(message) => done.error_message = Some(message),
    }
    let elapsed = started.elapsed();
    done.response_time = i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX);
    metrics.duration.observe(elapsed.as_secs_f64());
    let outcome = match done.answer.status {
        Some(200..=299) => "delivered",
        Some(_) => "rejected",
        None => "unanswered",
    };
    metrics.tries.with_label_values(&[outcome]).inc();
    done
}

async fn send(
    client: &reqwest::Client,
    policy: &AddressPolicy,
    job: &Job,
) -> Result<reqwest::Response, String> {
    let url =
        url::Url::parse(&job.request.url).map_err(|e| format!("the endpoint is not a URL: {e}"))?;
    connect::check_url(&url, policy).map_err(|e| e.to_string())?;
    let mut req = client.post(url).body(job.request.body.clone());
    for (name, value) in &job.request.headers {
        req = req.header(*name, value);
    }
    req.send().await.map_err(|e| describe(&e))
}

/// Reads the body up to what the log keeps, and no further: a receiver answering with a
/// large body costs at most that.
async fn read_some(res: &mut reqwest::Response) -> reqwest::Result<String> {
    let mut kept: Vec<u8> = Vec::new();
    while kept.len() < MAX_BODY_BYTES {
        match res.chunk().await? {
            Some(chunk) => kept.extend_from_slice(&chunk),
            None => break,
        }
    }
    kept.truncate(MAX_BODY_BYTES);
    Ok(crate::deliveries::domain::log::cut(
        &String::from_utf8_lossy(&kept),
    ))
}

fn headers_json(headers: &reqwest::header::HeaderMap) -> String {
    let mut shown = serde_json::Map::new();
    for (name, value) in headers {
        shown.insert(
            name.as_str().to_owned(),
            String::from_utf8_lossy(value.as_bytes()).into(),
        );
    }
    serde_json::Value::Object(shown).to_string()
}

/// What went wrong, in words a receiver's developer can act on, with the reason the guard
/// refused an address when it did.
fn describe(e: &reqwest::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(err) = source {
        if let Some(refused) = err.downcast_ref::<connect::Refused>() {
            return refused.to_string();
        }
        source = err.source();
    }
    if e.is_timeout() {
        format!("no answer within {} s", connect::TIMEOUT.as_secs())
    } else if e.is_connect() {
        format!("could not connect: {}", innermost(e))
    } else {
        format!("the request failed: {}", innermost(e))
    }
}

fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut last: &dyn std::error::Error = e;
    while let Some(next) = last.source() {
        last = next;
    }
    last.to_string()
}
