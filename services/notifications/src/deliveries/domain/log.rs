//! The delivery log: one entry per try, as SPEC.md shows it. Flags are the text `true` or
//! `false`, headers are JSON objects inside strings, and bodies are cut at 20 kB so a
//! receiver's large answer cannot fill the database.

use coffer_model::text_enum;
use serde::Serialize;

/// The most of a request or response body the log keeps, in bytes.
pub const MAX_BODY_BYTES: usize = 20 * 1024;

/// What the log says of a try whose answer was never recorded.
pub const UNANSWERED: &str = "no answer was recorded: the try is under way (waiting for a \
                               slot of its endpoint, or in flight), or its sender stopped \
                               before it ended";

text_enum! {
    /// How a try ended, as the log's `status` filter names it.
    pub enum TryOutcome {
        Succeeded => "succeeded",
        Failed => "failed",
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct WebhookResponse {
    pub uuid: String,
    pub task_uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: Option<String>,
    pub webhook_configuration_uuid: String,
    pub event_uuid: String,
    pub object_uuid: String,
    pub sent_at: i64,
    /// Whether the try finished (with an answer or a network error).
    pub answered: bool,
    pub error: bool,
    /// 0 when no answer came.
    pub status_code: i32,
    pub reason_phrase: String,
    pub error_message: Option<String>,
    /// Milliseconds.
    pub response_time: i64,
    pub do_not_retry: bool,
    pub request_headers: String,
    pub request_body: String,
    pub response_headers: String,
    pub response_body: String,
}

/// `text` cut to at most [`MAX_BODY_BYTES`], on a character boundary.
pub fn cut(text: &str) -> String {
    if text.len() <= MAX_BODY_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_BODY_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

fn flag(b: bool) -> String {
    if b { "true" } else { "false" }.to_owned()
}

impl WebhookResponse {
    pub fn item(&self) -> WebhookResponseItem {
        WebhookResponseItem {
            uuid: self.uuid.clone(),
            organisation_uuid: self.organisation_uuid.clone(),
            account_uuid: self.account_uuid.clone(),
            webhook_configuration_uuid: self.webhook_configuration_uuid.clone(),
            event_uuid: self.event_uuid.clone(),
            object_uuid: self.object_uuid.clone(),
            sent_at: self.sent_at,
            error: flag(self.error),
            status_code: self.status_code,
            reason_phrase: self.reason_phrase.clone(),
        }
    }

    pub fn view(&self) -> WebhookResponseView {
        WebhookResponseView {
            item: self.item(),
            response_time: self.response_time,
            error_message: self.error_message.clone().unwrap_or_default(),
            do_not_retry: flag(self.do_not_retry),
            request_headers: self.request_headers.clone(),
            request_body: self.request_body.clone(),
            response_headers: self.response_headers.clone(),
            response_body: self.response_body.clone(),
        }
    }
}

/// A try in the list form.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct WebhookResponseItem {
    #[schema(format = Uuid)]
    pub uuid: String,
    #[schema(format = Uuid)]
    pub organisation_uuid: String,
    #[schema(format = Uuid)]
    pub account_uuid: Option<String>,
    /// The webhook endpoint tried.
    #[schema(format = Uuid)]
    pub webhook_configuration_uuid: String,
    /// The event delivered; also the request's `webhook-id`.
    #[schema(format = Uuid)]
    pub event_uuid: String,
    /// The object the event is about.
    #[schema(format = Uuid)]
    pub object_uuid: String,
    /// When the try began (Unix seconds).
    pub sent_at: i64,
    /// `true` unless the endpoint answered with a 2xx.
    #[schema(pattern = "^(true|false)$")]
    pub error: String,
    /// The answer's status; 0 when none came (a network error, a timeout, a refused
    /// address, or a try still in flight).
    pub status_code: i32,
    pub reason_phrase: String,
}

/// A try in the single form.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct WebhookResponseView {
    #[serde(flatten)]
    pub item: WebhookResponseItem,
    /// Milliseconds from sending to the end of the answer.
    pub response_time: i64,
    /// What went wrong, when something did.
    pub error_message: String,
    /// `true` when no further try follows this one.
    #[schema(pattern = "^(true|false)$")]
    pub do_not_retry: String,
    /// The request's headers as a JSON object (credentials hidden).
    pub request_headers: String,
    /// The request's body, cut at 20 kB.
    pub request_body: String,
    /// The answer's headers as a JSON object.
    pub response_headers: String,
    /// The answer's body, cut at 20 kB.
    pub response_body: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_cut_on_a_character_boundary() {
        assert_eq!(cut("short"), "short");
        let long = "é".repeat(MAX_BODY_BYTES);
        let kept = cut(&long);
        assert!(kept.len() <= MAX_BODY_BYTES && kept.len() >= MAX_BODY_BYTES - 1);
        assert!(kept.chars().all(|c| c == 'é'));
    }
}
