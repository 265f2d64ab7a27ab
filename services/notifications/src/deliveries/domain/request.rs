//! The request of one try: a POST of the event's envelope, signed in the Standard Webhooks
//! way (signature.rs), with HTTP Basic authentication when the endpoint has credentials.
//! `webhook-id` is the event's id, the same on every try and every endpoint, so a receiver
//! can recognise a delivery it has seen; `webhook-timestamp` is when the try was made.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::signature;
use crate::endpoints::domain::Endpoint;
use crate::endpoints::domain::key::key_bytes;

pub const USER_AGENT: &str = concat!("Coffer-Webhooks/", env!("CARGO_PKG_VERSION"));

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

/// The request of a try of `event_id` with `body` to `endpoint`, made at `now` (Unix
/// seconds). A key rotated out less than a day ago signs too.
pub fn build(event_id: &str, body: &str, endpoint: &Endpoint, now: i64) -> Outgoing {
    let mut keys = vec![key_bytes(&endpoint.hmac_key)];
    if let Some((old, until)) = &endpoint.previous_hmac_key
        && *until > now
    {
        keys.push(key_bytes(old));
    }
    let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("user-agent", USER_AGENT.to_owned()),
        ("webhook-id", event_id.to_owned()),
        ("webhook-timestamp", now.to_string()),
        (
            "webhook-signature",
            signature::header(&keys, event_id, now, body.as_bytes()),
        ),
    ];
    if endpoint.username.is_some() || endpoint.password.is_some() {
        let pair = format!(
            "{}:{}",
            endpoint.username.as_deref().unwrap_or_default(),
            endpoint.password.as_deref().unwrap_or_default()
        );
        headers.push(("authorization", format!("Basic {}", STANDARD.encode(pair))));
    }
    Outgoing {
        url: endpoint.endpoint.clone(),
        headers,
        body: body.to_owned(),
    }
}

/// The headers as the delivery log shows them: a JSON object, credentials hidden.
pub fn logged_headers(headers: &[(&'static str, String)]) -> String {
    let shown: serde_json::Map<String, serde_json::Value> = headers
        .iter()
        .map(|(name, value)| {
            let value = if *name == "authorization" {
                "Basic [hidden]".to_owned()
            } else {
                value.clone()
            };
            ((*name).to_owned(), value.into())
        })
        .collect();
    serde_json::Value::Object(shown).to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn endpoint() -> Endpoint {
        Endpoint {
            uuid: "e".into(),
            organisation_uuid: "o".into(),
            account_uuid: None,
            alias: None,
            endpoint: "https://crm.example.org/hooks".into(),
            username: Some("coffer".into()),
            password: Some("s3cret".into()),
            hmac_key: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into(),
            previous_hmac_key: Some(("an old plain key".into(), 1_000)),
            enabled: true,
            disabled_reason: None,
            created: 0,
        }
    }

    fn header<'a>(o: &'a Outgoing, name: &str) -> &'a str {
        o.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .unwrap()
    }

    #[test]
    fn a_try_is_signed_with_both_keys_during_a_rotation_and_with_one_after() {
        let during = build("ev", "{}", &endpoint(), 999);
        assert_eq!(header(&during, "webhook-signature").split(' ').count(), 2);
        assert_eq!(header(&during, "webhook-id"), "ev");
        assert_eq!(header(&during, "webhook-timestamp"), "999");
        let after = build("ev", "{}", &endpoint(), 1_000);
        assert_eq!(header(&after, "webhook-signature").split(' ').count(), 1);
    }

    #[test]
    fn credentials_go_out_as_basic_auth_and_never_into_the_log() {
        let o = build("ev", "{}", &endpoint(), 0);
        assert_eq!(header(&o, "authorization"), "Basic Y29mZmVyOnMzY3JldA==");
        let logged = logged_headers(&o.headers);
        assert!(!logged.contains("Y29mZmVyOnMzY3JldA=="), "{logged}");
        assert!(logged.contains("webhook-signature"));
        let mut bare = endpoint();
        (bare.username, bare.password) = (None, None);
        assert!(
            build("ev", "{}", &bare, 0)
                .headers
                .iter()
                .all(|(n, _)| *n != "authorization")
        );
    }
}
