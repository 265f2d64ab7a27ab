//! The name a delivery carries. A subscription receives its event under the name it was made
//! with (`raisenow.payments.payment.succeeded`, `rnw.event.payment_gateway.payment.succeeded`
//! or Coffer's own), since clients match deliveries on the name they subscribed to; the event
//! itself, on the bus and in every other consumer, keeps Coffer's name. Only the name
//! changes: the id, timestamps, object and data are the event's, and the body is signed as
//! it is delivered (request.rs).

use coffer_events::Event;
use serde_json::Value;

use crate::subscriptions::domain::Subscription;

/// The body of a delivery of `event` under `name`: the event's envelope with that name.
pub fn body(event: &Event, name: &str) -> Result<String, serde_json::Error> {
    if event.name == name {
        return event.to_json_string();
    }
    let mut named = event.clone();
    name.clone_into(&mut named.name);
    named.to_json_string()
}

/// The event as a filter of a subscription under `name` reads it: `seen` (the event as JSON)
/// with that name.
pub fn seen_as(seen: &Value, name: &str) -> Value {
    let mut view = seen.clone();
    if let Some(fields) = view.as_object_mut() {
        fields.insert("name".to_owned(), Value::String(name.to_owned()));
    }
    view
}

/// Which of two subscriptions of one endpoint to the same event names its delivery: an
/// event owes an endpoint one delivery, and it carries the oldest subscription's name, so
/// the choice does not change from one event to the next.
pub fn names_first(a: &Subscription, b: &Subscription) -> bool {
    (a.created, &a.uuid) < (b.created, &b.uuid)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use coffer_events::catalogue::PAYMENT_SUCCEEDED;
    use serde_json::json;
    use uuid::Uuid;

    fn event() -> Event {
        Event::new(
            &PAYMENT_SUCCEEDED,
            "coffer",
            1_767_225_600_000,
            Uuid::new_v4(),
            Some(Uuid::new_v4()),
            None,
            json!({"amount": 2500, "payment_method": "card"}),
        )
    }

    #[test]
    fn only_the_name_changes() {
        let event = event();
        let mine: Value =
            serde_json::from_str(&body(&event, "raisenow.payments.payment.succeeded").unwrap())
                .unwrap();
        let mut coffer: Value = serde_json::from_str(&event.to_json_string().unwrap()).unwrap();
        assert_eq!(mine["event"]["name"], "raisenow.payments.payment.succeeded");
        coffer["event"]["name"] = json!("raisenow.payments.payment.succeeded");
        assert_eq!(mine, coffer);
        assert_eq!(
            body(&event, &event.name).unwrap(),
            event.to_json_string().unwrap(),
            "under its own name the body is the event's, byte for byte"
        );
    }

    #[test]
    fn a_filter_reads_the_subscription_name() {
        let seen = serde_json::to_value(event()).unwrap();
        let view = seen_as(&seen, "rnw.event.payment_gateway.payment.succeeded");
        assert_eq!(view["name"], "rnw.event.payment_gateway.payment.succeeded");
        assert_eq!(view["data"], seen["data"]);
    }

    #[test]
    fn the_oldest_subscription_names_the_delivery() {
        let of = |uuid: &str, created: i64| Subscription {
            uuid: uuid.into(),
            organisation_uuid: "o".into(),
            account_uuid: None,
            action_configuration_uuid: "e".into(),
            event_name: "coffer.event.payment_gateway.payment.succeeded".into(),
            event_key: "payment_gateway.payment.succeeded".into(),
            filter: None,
            enabled: true,
            created,
        };
        assert!(names_first(&of("b", 1), &of("a", 2)));
        assert!(
            names_first(&of("a", 2), &of("b", 2)),
            "the same second: by uuid"
        );
        assert!(!names_first(&of("b", 2), &of("a", 2)));
    }
}
