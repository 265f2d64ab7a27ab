//! The event a subscription names. Clients written for other platforms send names under
//! their own prefix (`rnw.event.payment_gateway.payment.succeeded`), so only the part from
//! `.event.` on is matched against Coffer's catalogue; the name is kept and shown as sent.

use coffer_events::catalogue::{CATALOGUE, EventType};
use coffer_model::validation::FieldError;

/// Long enough for any prefix a client uses before `.event.`.
const MAX_CHARS: usize = 255;

/// The catalogue entry `name` subscribes to.
pub fn subscribed(name: &str) -> Result<&'static EventType, FieldError> {
    const AT: &str = "event_name";
    if name.trim().is_empty() {
        return Err(FieldError::not_blank(AT));
    }
    if name.chars().count() > MAX_CHARS {
        return Err(FieldError::not_valid(
            AT,
            format!("must be at most {MAX_CHARS} characters"),
        ));
    }
    CATALOGUE.iter().find(|kind| kind.is(name)).ok_or_else(|| {
        FieldError::not_valid(
            AT,
            "must name an event of the catalogue, as <prefix>.event.<domain>.<object>.<action> \
             (docs/events.md)",
        )
    })
}

/// The catalogue part of an event's name (`payment_gateway.payment.succeeded`), which
/// subscriptions are matched on.
pub fn key_of(name: &str) -> Option<&str> {
    name.split_once(".event.").map(|(_, key)| key)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use coffer_events::catalogue::PAYMENT_SUCCEEDED;

    #[test]
    fn any_prefix_names_the_same_event_and_unknown_events_are_refused() {
        for name in [
            "coffer.event.payment_gateway.payment.succeeded",
            "rnw.event.payment_gateway.payment.succeeded",
            "a.b.event.payment_gateway.payment.succeeded",
        ] {
            assert_eq!(subscribed(name).unwrap(), &PAYMENT_SUCCEEDED, "{name}");
        }
        for bad in [
            "",
            "payment_gateway.payment.succeeded",
            "coffer.event.payment_gateway.payment.exploded",
            "coffer.event.payment_gateway.payment.succeeded.extra",
        ] {
            assert_eq!(subscribed(bad).unwrap_err().property, "event_name", "{bad}");
        }
    }
}
