//! The bodies of Create, Replace and Update Event Subscription, checked field by field;
//! every problem is named by its property. Pure: the endpoint and account are checked
//! against the caller's organisation by the commands.

use coffer_model::fields::FieldReader;
use coffer_model::validation::FieldError;
use serde_json::Value;

use super::{event_name, filter};

/// Every field a body may carry; `None` when it was left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    pub organisation_uuid: Option<String>,
    pub account_uuid: Option<Option<String>>,
    pub action_configuration_uuid: Option<String>,
    /// Only ever `webhook`; kept to tell a body that names it from one that does not.
    pub action_type: Option<String>,
    /// The name as sent, and its catalogue part.
    pub event: Option<(String, String)>,
    /// `Some(None)` clears it.
    pub filter: Option<Option<Value>>,
    pub enabled: Option<bool>,
}

pub fn read(body: &Value) -> Result<Fields, Vec<FieldError>> {
    let mut r = FieldReader::of(body)?;
    let mut f = Fields {
        organisation_uuid: r.uuid("organisation_uuid").flatten(),
        account_uuid: r.uuid("account_uuid"),
        action_configuration_uuid: r.uuid("action_configuration_uuid").flatten(),
        enabled: r.flag("enabled"),
        ..Fields::default()
    };
    let action_type = r.text("action_type", 64);
    let name = r.text("event_name", 1_024);
    let raw_filter = r.get("filter").cloned();
    let mut errors = r.errors;
    match action_type {
        Some(Some(kind)) if kind == "webhook" => f.action_type = Some(kind),
        Some(_) => errors.push(FieldError::invalid_choice("action_type", "must be webhook")),
        None => {}
    }
    match name {
        None => {}
        Some(None) => errors.push(FieldError::not_blank("event_name")),
        Some(Some(name)) => match event_name::subscribed(&name) {
            Ok(kind) => {
                let key = format!("{}.{}.{}", kind.domain, kind.object, kind.action);
                f.event = Some((name, key));
            }
            Err(e) => errors.push(e),
        },
    }
    if let Some(raw) = raw_filter {
        match filter::read(&raw) {
            Ok(None) => f.filter = Some(None),
            Ok(Some(_)) => f.filter = Some(Some(raw)),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(f)
    } else {
        Err(errors)
    }
}

/// What Create and Replace cannot do without.
pub fn require_whole(f: &Fields) -> Result<(), Vec<FieldError>> {
    let mut missing = Vec::new();
    if f.action_configuration_uuid.is_none() {
        missing.push(FieldError::not_null("action_configuration_uuid"));
    }
    if f.action_type.is_none() {
        missing.push(FieldError::not_null("action_type"));
    }
    if f.event.is_none() {
        missing.push(FieldError::not_blank("event_name"));
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

// The bodies as the API description shows them; `read` above is what checks them.

/// The body of Create and Replace Event Subscription.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"action_configuration_uuid": "3c1f8a2e-5b7d-4e9f-a1c3-5e7f9b1d3a5c", "action_type": "webhook", "event_name": "coffer.event.payment_gateway.payment.succeeded", "filter": "event.data[\"payment_method\"] === \"card\""}))]
#[allow(dead_code)]
pub struct EventSubscriptionBody {
    /// The endpoint's organisation when left out.
    #[schema(format = Uuid)]
    organisation_uuid: Option<String>,
    #[schema(format = Uuid)]
    account_uuid: Option<String>,
    /// A webhook endpoint of the organisation.
    #[schema(format = Uuid)]
    action_configuration_uuid: String,
    /// Only `webhook`.
    action_type: String,
    /// An event of the catalogue: Coffer's name under any prefix
    /// (`rnw.event.payment_gateway.payment.succeeded` too) or RaiseNow's
    /// (`raisenow.payments.payment.succeeded`). Deliveries carry it, as sent, as the event's
    /// name (docs/events.md).
    event_name: String,
    /// A search object or an expression string (docs/webhooks.md).
    #[schema(value_type = Option<Object>)]
    filter: Option<Value>,
    enabled: Option<bool>,
}

/// The body of Update Event Subscription: a field left out is kept.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"enabled": false}))]
#[allow(dead_code)]
pub struct EventSubscriptionChange {
    #[schema(format = Uuid)]
    account_uuid: Option<String>,
    #[schema(format = Uuid)]
    action_configuration_uuid: Option<String>,
    action_type: Option<String>,
    event_name: Option<String>,
    #[schema(value_type = Option<Object>)]
    filter: Option<Value>,
    enabled: Option<bool>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_prefixed_name_and_a_string_filter_are_kept_as_sent() {
        let f = read(
            &json!({"action_configuration_uuid": "3c1f8a2e-5b7d-4e9f-a1c3-5e7f9b1d3a5c",
            "action_type": "webhook", "event_name": "rnw.event.payment_gateway.payment.succeeded",
            "filter": "event.data[\"payment_method\"] === \"card\"", "enabled": "true"}),
        )
        .unwrap();
        assert_eq!(
            f.event,
            Some((
                "rnw.event.payment_gateway.payment.succeeded".into(),
                "payment_gateway.payment.succeeded".into()
            ))
        );
        assert_eq!(
            f.filter,
            Some(Some(json!("event.data[\"payment_method\"] === \"card\"")))
        );
        assert_eq!(f.enabled, Some(true));
        assert_eq!(require_whole(&f), Ok(()));
        let f = read(&json!({"event_name": "raisenow.payments.reversal.succeeded"})).unwrap();
        assert_eq!(
            f.event,
            Some((
                "raisenow.payments.reversal.succeeded".into(),
                "payment_gateway.refund.succeeded".into()
            )),
            "RaiseNow's name is kept; the key is Coffer's event's"
        );
    }

    #[test]
    fn every_bad_field_is_named() {
        let errors = read(&json!({"action_configuration_uuid": 1, "action_type": "email",
            "event_name": "coffer.event.nothing.here.at_all", "filter": "process.exit()", "enabled": 2}))
        .unwrap_err();
        let properties: Vec<&str> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(
            properties,
            [
                "action_configuration_uuid",
                "enabled",
                "action_type",
                "event_name",
                "filter"
            ]
        );
        let missing = require_whole(&read(&json!({})).unwrap()).unwrap_err();
        let properties: Vec<&str> = missing.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(
            properties,
            ["action_configuration_uuid", "action_type", "event_name"]
        );
    }
}
