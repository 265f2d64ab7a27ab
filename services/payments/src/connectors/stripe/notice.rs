//! A Stripe event (a notification to a connector account's endpoint) as Coffer reads it:
//! its id, its type, whether it is of live or test mode, and, for the PaymentIntent events
//! that decide a charge, the payment it names and what it decided. Pure: the signature was
//! checked first (signature.rs).

use serde::Deserialize;

use super::client::PAYMENT_METADATA;
use super::mapping;
use super::objects::{Dispute, PaymentIntent, Payout};
use crate::shared::connector::ChargeOutcome;

/// The longest event id and type kept (Stripe's are far shorter).
const MAX_ID: usize = 255;
const MAX_TYPE: usize = 100;

/// A verified event.
#[derive(Debug)]
pub struct Notice {
    pub id: String,
    pub kind: String,
    pub live: bool,
    pub about: About,
}

/// What an event says that Coffer acts on.
#[derive(Debug)]
pub enum About {
    /// A PaymentIntent reached an end: the payment its metadata names, the intent (for its
    /// id, amount and currency), and the outcome.
    Charge {
        payment_uuid: String,
        intent: Box<PaymentIntent>,
        outcome: ChargeOutcome,
    },
    /// A dispute of a charge was opened, moved on or closed (`charge.dispute.*`), at the
    /// event's time; it names the PaymentIntent, not Coffer's payment.
    Dispute { dispute: Box<Dispute>, at: i64 },
    /// Stripe paid the account's balance out to its bank (`payout.paid`).
    PaidOut(Box<Payout>),
    /// Anything else: acknowledged, and recorded as seen.
    Nothing,
}

#[derive(Deserialize)]
struct Event {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    livemode: bool,
    #[serde(default)]
    created: i64,
    data: EventData,
}

#[derive(Deserialize)]
struct EventData {
    object: serde_json::Value,
}

/// The events whose intent has ended. `payment_intent.processing` and
/// `payment_intent.requires_action` say it has not: the payment stays as it is.
const ENDED: &[&str] = &[
    "payment_intent.succeeded",
    "payment_intent.payment_failed",
    "payment_intent.canceled",
];

/// The event of a payout that reached the bank; `payout.created` says it is on its way,
/// and may still fail.
const PAID_OUT: &str = "payout.paid";

/// The events of a dispute: `charge.dispute.created`, `.updated`, `.closed`,
/// `.funds_withdrawn`, `.funds_reinstated`.
const DISPUTE_EVENTS: &str = "charge.dispute.";

/// Why a body is not an event Coffer can read; the sender is told which part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable(pub &'static str);

/// Reads a verified body.
pub fn read(body: &[u8]) -> Result<Notice, Unreadable> {
    let event: Event = serde_json::from_slice(body).map_err(|_| Unreadable("body"))?;
    if event.id.is_empty() || event.id.len() > MAX_ID {
        return Err(Unreadable("id"));
    }
    if event.kind.is_empty() || event.kind.len() > MAX_TYPE {
        return Err(Unreadable("type"));
    }
    let about = if ENDED.contains(&event.kind.as_str()) {
        charge(event.data.object)?
    } else if event.kind == PAID_OUT {
        let payout: Payout =
            serde_json::from_value(event.data.object).map_err(|_| Unreadable("data.object"))?;
        About::PaidOut(Box::new(payout))
    } else if event.kind.starts_with(DISPUTE_EVENTS) {
        let dispute: Dispute =
            serde_json::from_value(event.data.object).map_err(|_| Unreadable("data.object"))?;
        About::Dispute {
            dispute: Box::new(dispute),
            at: event.created,
        }
    } else {
        About::Nothing
    };
    Ok(Notice {
        id: event.id,
        kind: event.kind,
        live: event.livemode,
        about,
    })
}

/// A PaymentIntent event's subject. One that names no Coffer payment (made elsewhere on
/// the same Stripe account) is nothing to Coffer, as is an intent that has not ended.
fn charge(object: serde_json::Value) -> Result<About, Unreadable> {
    let intent: PaymentIntent =
        serde_json::from_value(object).map_err(|_| Unreadable("data.object"))?;
    let Some(payment_uuid) = intent.metadata.get(PAYMENT_METADATA).cloned() else {
        return Ok(About::Nothing);
    };
    let outcome = match mapping::charge_outcome(&intent) {
        Some(outcome @ (ChargeOutcome::Succeeded { .. } | ChargeOutcome::Failed { .. })) => outcome,
        _ => return Ok(About::Nothing),
    };
    Ok(About::Charge {
        payment_uuid,
        intent: Box::new(intent),
        outcome,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(kind: &str, intent: serde_json::Value) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "id": "evt_1", "type": kind, "livemode": false, "data": { "object": intent }
        }))
        .unwrap()
    }

    fn intent(status: &str) -> serde_json::Value {
        json!({
            "id": "pi_1", "status": status, "amount": 1500, "currency": "chf",
            "metadata": { "coffer_payment_uuid": "p-1" },
            "last_payment_error": null, "next_action": null
        })
    }

    #[test]
    fn a_succeeded_intent_names_its_payment() {
        let notice = read(&event("payment_intent.succeeded", intent("succeeded"))).unwrap();
        assert_eq!((notice.id.as_str(), notice.live), ("evt_1", false));
        match notice.about {
            About::Charge {
                payment_uuid,
                outcome,
                ..
            } => {
                assert_eq!(payment_uuid, "p-1");
                assert_eq!(
                    outcome,
                    ChargeOutcome::Succeeded {
                        provider_payment_id: "pi_1".into()
                    }
                );
            }
            _ => panic!("a charge"),
        }
    }

    #[test]
    fn a_dispute_event_names_its_intent_and_when_it_was_made() {
        let body = serde_json::to_vec(&json!({
            "id": "evt_2", "type": "charge.dispute.closed", "livemode": false, "created": 1_800_000_000,
            "data": { "object": { "id": "dp_1", "amount": 500, "currency": "eur",
                "payment_intent": "pi_1", "reason": "fraudulent", "status": "lost" } }
        }))
        .unwrap();
        match read(&body).unwrap().about {
            About::Dispute { dispute, at } => {
                assert_eq!(dispute.payment_intent.as_deref(), Some("pi_1"));
                assert_eq!((dispute.status.as_str(), at), ("lost", 1_800_000_000));
            }
            _ => panic!("a dispute"),
        }
    }

    #[test]
    fn a_declined_intent_carries_its_reason() {
        let mut declined = intent("requires_payment_method");
        declined["last_payment_error"] =
            json!({"code": "card_declined", "decline_code": "insufficient_funds"});
        let notice = read(&event("payment_intent.payment_failed", declined)).unwrap();
        let About::Charge { outcome, .. } = notice.about else {
            panic!("a charge")
        };
        assert_eq!(
            outcome,
            ChargeOutcome::Failed {
                provider_payment_id: "pi_1".into(),
                reason: "insufficient_funds".into()
            }
        );
    }

    #[test]
    fn intents_not_ended_or_not_coffers_are_nothing() {
        let processing = read(&event("payment_intent.succeeded", intent("processing"))).unwrap();
        assert!(matches!(processing.about, About::Nothing));
        let mut foreign = intent("succeeded");
        foreign["metadata"] = json!({});
        let foreign = read(&event("payment_intent.succeeded", foreign)).unwrap();
        assert!(matches!(foreign.about, About::Nothing));
        let created = read(&event("payout.created", json!({"id": "po_1"}))).unwrap();
        assert!(matches!(created.about, About::Nothing));
        let paid = json!({"id": "po_1", "amount": 100, "currency": "eur", "arrival_date": 1});
        let paid = read(&event("payout.paid", paid)).unwrap();
        assert!(matches!(paid.about, About::PaidOut(_)));
    }

    #[test]
    fn unreadable_bodies_name_their_part() {
        assert_eq!(read(b"{").unwrap_err(), Unreadable("body"));
        let long = serde_json::to_vec(&json!({
            "id": "e".repeat(256), "type": "x", "data": {"object": {}}
        }))
        .unwrap();
        assert_eq!(read(&long).unwrap_err(), Unreadable("id"));
        let bad = event("payment_intent.succeeded", json!({"id": 1}));
        assert_eq!(read(&bad).unwrap_err(), Unreadable("data.object"));
    }
}
