//! An event subscription as notifications keeps it, and as the API shows it.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: Option<String>,
    /// The webhook endpoint events go to.
    pub action_configuration_uuid: String,
    /// As the client sent it, in either form (domain/event_name.rs); its deliveries carry it.
    pub event_name: String,
    /// The catalogue key of the event it names (`payment_gateway.payment.succeeded`), which
    /// events are matched on.
    pub event_key: String,
    /// The filter as sent (an object or an expression string), already checked.
    pub filter: Option<Value>,
    pub enabled: bool,
    pub created: i64,
}

impl Subscription {
    pub fn view(&self) -> EventSubscriptionView {
        EventSubscriptionView {
            uuid: self.uuid.clone(),
            organisation_uuid: self.organisation_uuid.clone(),
            account_uuid: self.account_uuid.clone(),
            action_configuration_uuid: self.action_configuration_uuid.clone(),
            action_type: "webhook",
            event_name: self.event_name.clone(),
            filter: self.filter.clone(),
            enabled: if self.enabled { "true" } else { "false" },
            created: self.created,
        }
    }
}

/// An event subscription as answered.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct EventSubscriptionView {
    #[schema(format = Uuid)]
    pub uuid: String,
    #[schema(format = Uuid)]
    pub organisation_uuid: String,
    #[schema(format = Uuid)]
    pub account_uuid: Option<String>,
    /// The webhook endpoint the events go to.
    #[schema(format = Uuid)]
    pub action_configuration_uuid: String,
    /// Always `webhook`.
    pub action_type: &'static str,
    /// As it was sent; the subscription's deliveries carry it as the event's name.
    pub event_name: String,
    /// As it was sent: a search object or an expression string.
    #[schema(value_type = Option<Object>)]
    pub filter: Option<Value>,
    /// `true` or `false`, as text (SPEC.md shows it so).
    pub enabled: &'static str,
    pub created: i64,
}
