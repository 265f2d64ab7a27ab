//! The event a subscription names, in either form a client may use: Coffer's
//! `<prefix>.event.<domain>.<object>.<action>` under any prefix (clients written for RaiseNow
//! send `rnw.event.payment_gateway.payment.succeeded`), matched on the part from `.event.`
//! on; or RaiseNow's own `raisenow.<context>.<object>.<action>`, looked up in RaiseNow's
//! table (coffer_events::raisenow_names). The name is kept as sent: it is shown, and it is
//! the name the subscription's deliveries carry.

use coffer_events::catalogue::{CATALOGUE, EventType};
use coffer_events::raisenow_names::{self, RaiseNowName};
use coffer_model::validation::FieldError;

/// Long enough for any prefix a client uses before `.event.`.
const MAX_CHARS: usize = 255;
const AT: &str = "event_name";

/// The catalogue entry `name` subscribes to.
pub fn subscribed(name: &str) -> Result<&'static EventType, FieldError> {
    if name.trim().is_empty() {
        return Err(FieldError::not_blank(AT));
    }
    if name.chars().count() > MAX_CHARS {
        return Err(FieldError::not_valid(
            AT,
            format!("must be at most {MAX_CHARS} characters"),
        ));
    }
    // Deliveries carry the name as sent, to receivers that match on it: only the
    // characters event names are made of, in dot-separated words, never control or
    // bidirectional characters, markup, or an empty prefix.
    if !is_dotted_words(name) {
        return Err(FieldError::not_valid(
            AT,
            "must be words of a-z, 0-9, _ and - joined by dots, as \
             coffer.event.payment_gateway.payment.succeeded is",
        ));
    }
    if let Some(kind) = CATALOGUE.iter().find(|kind| kind.is(name)) {
        return Ok(kind);
    }
    if !name.starts_with(raisenow_names::PREFIX) {
        return Err(FieldError::not_valid(
            AT,
            "must name an event of the catalogue, as <prefix>.event.<domain>.<object>.<action> \
             or as RaiseNow names it (raisenow.payments.payment.succeeded); docs/events.md \
             lists both",
        ));
    }
    match raisenow_names::read(name) {
        RaiseNowName::Shared(kind) => Ok(kind),
        RaiseNowName::RaiseNowOnly => Err(FieldError::not_valid(
            AT,
            "is RaiseNow's name of an event Coffer does not have; docs/events.md lists the \
             events Coffer has, with RaiseNow's names for them",
        )),
        RaiseNowName::Unknown => Err(FieldError::not_valid(
            AT,
            "is not one of RaiseNow's event names; send one of those docs/events.md lists \
             (raisenow.payments.payment.succeeded) or Coffer's name for the event \
             (coffer.event.payment_gateway.payment.succeeded)",
        )),
    }
}

/// `a.b_c.d-e`: words of lowercase ASCII letters, digits, `_` and `-`, joined by dots.
fn is_dotted_words(name: &str) -> bool {
    name.split('.').all(|word| {
        !word.is_empty()
            && word
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
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
    use coffer_events::catalogue::{PAYMENT_SUCCEEDED, SUBSCRIPTION_ACTIVATED};

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
            // What a delivery would carry to a receiver as the event's name.
            ".event.payment_gateway.payment.succeeded",
            "x<script>.event.payment_gateway.payment.succeeded",
            "x\u{0}\n\u{202e}.event.payment_gateway.payment.succeeded",
            "RNW.event.payment_gateway.payment.succeeded",
            "rnw..event.payment_gateway.payment.succeeded",
            "rnw event.payment_gateway.payment.succeeded.",
        ] {
            let refused = subscribed(bad).unwrap_err();
            assert_eq!(refused.property, "event_name", "{bad}");
            assert!(!refused.message.contains("script"), "not echoed: {bad}");
        }
    }

    #[test]
    fn raisenow_names_subscribe_through_the_table_and_others_are_told_what_to_send() {
        assert_eq!(
            subscribed("raisenow.payments.payment.succeeded").unwrap(),
            &PAYMENT_SUCCEEDED
        );
        assert_eq!(
            subscribed("raisenow.subscriptions.subscription.activated").unwrap(),
            &SUBSCRIPTION_ACTIVATED
        );
        // Coffer's form under RaiseNow's prefix is still Coffer's form.
        assert_eq!(
            subscribed("raisenow.event.payment_gateway.payment.succeeded").unwrap(),
            &PAYMENT_SUCCEEDED
        );
        for (name, says) in [
            (
                "raisenow.payment_gateway.payment.succeeded",
                "not one of RaiseNow's",
            ),
            (
                "raisenow.organisations.organisation.approved",
                "Coffer does not have",
            ),
        ] {
            let refused = subscribed(name).unwrap_err();
            assert_eq!(refused.property, "event_name", "{name}");
            let message = refused.message;
            assert!(
                message.contains(says) && message.contains("docs/events.md"),
                "{message}"
            );
        }
    }
}
