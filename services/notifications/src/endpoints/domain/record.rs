//! A webhook endpoint as notifications keeps it, and as the API shows it. The password and
//! keys are held here open; the store seals them (store.rs).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: Option<String>,
    pub alias: Option<String>,
    pub endpoint: String,
    pub username: Option<String>,
    pub password: Option<String>,
    pub hmac_key: String,
    /// The key rotated out, and until when deliveries still carry its signature.
    pub previous_hmac_key: Option<(String, i64)>,
    pub enabled: bool,
    /// Why Coffer turned it off; none when it is on, or a client turned it off.
    pub disabled_reason: Option<String>,
    pub created: i64,
}

/// How long deliveries carry the old key's signature beside the new one's.
pub const ROTATION_SECS: i64 = 24 * 60 * 60;

impl Endpoint {
    /// Sets a new key; the old one signs too, for [`ROTATION_SECS`] from `now`.
    pub fn rotate(&mut self, key: String, now: i64) {
        if key != self.hmac_key {
            let old = std::mem::replace(&mut self.hmac_key, key);
            self.previous_hmac_key = Some((old, now + ROTATION_SECS));
        }
    }

    /// The single form: with the signing key, never the password.
    pub fn view(&self) -> EndpointView {
        EndpointView {
            hmac_key: Some(self.hmac_key.clone()),
            ..self.item()
        }
    }

    /// The list form: no secrets at all.
    pub fn item(&self) -> EndpointView {
        EndpointView {
            uuid: self.uuid.clone(),
            organisation_uuid: self.organisation_uuid.clone(),
            account_uuid: self.account_uuid.clone(),
            alias: self.alias.clone(),
            endpoint: self.endpoint.clone(),
            username: self.username.clone(),
            hmac_key: None,
            enabled: self.enabled,
            disabled_reason: self.disabled_reason.clone(),
            created: self.created,
        }
    }
}

/// A webhook endpoint as answered. `password` is never shown; `hmac_key` only when one
/// endpoint is asked for.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct EndpointView {
    #[schema(format = Uuid)]
    pub uuid: String,
    #[schema(format = Uuid)]
    pub organisation_uuid: String,
    #[schema(format = Uuid)]
    pub account_uuid: Option<String>,
    pub alias: Option<String>,
    /// Where deliveries go (https).
    pub endpoint: String,
    /// Sent with the password as HTTP Basic authentication on every delivery.
    pub username: Option<String>,
    /// The key deliveries are signed with (docs/webhooks.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hmac_key: Option<String>,
    /// Whether deliveries are made.
    pub enabled: bool,
    /// Why Coffer turned it off (an answer of 410, or five days of failures).
    pub disabled_reason: Option<String>,
    pub created: i64,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_keeps_the_old_one_for_a_day_and_the_same_key_changes_nothing() {
        let mut e = Endpoint {
            uuid: "u".into(),
            organisation_uuid: "o".into(),
            account_uuid: None,
            alias: None,
            endpoint: "https://crm.example.org".into(),
            username: None,
            password: Some("secret".into()),
            hmac_key: "whsec_old".into(),
            previous_hmac_key: None,
            enabled: true,
            disabled_reason: None,
            created: 0,
        };
        e.rotate("whsec_old".into(), 100);
        assert_eq!(e.previous_hmac_key, None);
        e.rotate("whsec_new".into(), 100);
        assert_eq!(e.hmac_key, "whsec_new");
        assert_eq!(
            e.previous_hmac_key,
            Some(("whsec_old".into(), 100 + ROTATION_SECS))
        );
        let shown = serde_json::to_value(e.view()).unwrap();
        assert_eq!(shown["hmac_key"], "whsec_new");
        assert!(shown.get("password").is_none());
        assert!(
            serde_json::to_value(e.item())
                .unwrap()
                .get("hmac_key")
                .is_none()
        );
    }
}
