//! A dispute as Coffer keeps and answers it, and which event each change announces. Pure.

use coffer_events::EventType;
use coffer_events::catalogue::{DISPUTE_CLOSED, DISPUTE_OPENED, DISPUTE_UPDATED};
use coffer_model::money::Money;
use serde::Serialize;

/// One dispute of a payment, as `GET /payments/{uuid}/disputes` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"uuid": "4f8a7d3e-51c2-4b0e-9a61-0c7e2d9b1f35", "payment_uuid": "0b6a3c38-3b1f-4d67-9a0e-2f0d3e9b8c11",
    "amount": {"value": "2500", "currency": "EUR"}, "reason": "fraudulent", "status": "needs_response",
    "created": 1798761600, "updated": 1798761600}))]
pub struct Dispute {
    pub uuid: String,
    pub payment_uuid: String,
    /// The amount disputed, which may be less than the payment (taken back unless the
    /// dispute is won, or is only an inquiry, Stripe's `warning_*`).
    #[schema(value_type = Object)]
    pub amount: Money,
    /// Why, as the provider says it (Stripe: `fraudulent`, `product_not_received`, ...).
    pub reason: String,
    /// Where it stands, as the provider says it (Stripe: `needs_response`, `under_review`,
    /// `won`, `lost`, ...).
    pub status: String,
    pub created: i64,
    /// When the provider last changed it.
    pub updated: i64,
}

/// What the provider says of a dispute, at `at` (its event's time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub provider_dispute_id: String,
    pub amount: Money,
    pub reason: String,
    pub status: String,
    pub at: i64,
}

/// The statuses in which a dispute is over.
pub const CLOSED: &[&str] = &[
    "won",
    "lost",
    "warning_closed",
    "charge_refunded",
    "prevented",
];

pub fn is_closed(status: &str) -> bool {
    CLOSED.contains(&status)
}

/// What a word about a dispute does to the one recorded (`known`: its status and when the
/// provider last changed it): the event it announces, or None when it changes nothing (it
/// is older than what is recorded, or says the same).
pub fn change(known: Option<(&str, i64)>, said: &Said) -> Option<&'static EventType> {
    match known {
        None if is_closed(&said.status) => Some(&DISPUTE_CLOSED),
        None => Some(&DISPUTE_OPENED),
        // Only a newer word moves it (Stripe's times are whole seconds).
        Some((_, updated)) if said.at <= updated => None,
        Some((status, _)) if status == said.status => None,
        // A closed dispute stays closed, whatever arrives after.
        Some((status, _)) if is_closed(status) => None,
        Some(_) if is_closed(&said.status) => Some(&DISPUTE_CLOSED),
        Some(_) => Some(&DISPUTE_UPDATED),
    }
}

/// The event of a known open dispute that moved on as `said` says.
pub fn moved_on(said: &Said) -> &'static EventType {
    if is_closed(&said.status) {
        &DISPUTE_CLOSED
    } else {
        &DISPUTE_UPDATED
    }
}

#[cfg(test)]
mod tests {
    use coffer_model::currency::Currency;

    use super::*;

    fn said(status: &str, at: i64) -> Said {
        Said {
            provider_dispute_id: "dp_1".into(),
            amount: Money::new(2500, Currency::parse("EUR").unwrap()).unwrap(),
            reason: "fraudulent".into(),
            status: status.into(),
            at,
        }
    }

    #[test]
    fn a_dispute_opens_moves_on_and_closes_and_never_moves_back() {
        assert_eq!(
            change(None, &said("needs_response", 10)),
            Some(&DISPUTE_OPENED)
        );
        assert_eq!(
            change(Some(("needs_response", 10)), &said("under_review", 20)),
            Some(&DISPUTE_UPDATED)
        );
        assert_eq!(
            change(Some(("under_review", 20)), &said("lost", 30)),
            Some(&DISPUTE_CLOSED)
        );
        // Late, repeated, or after the end: nothing.
        assert_eq!(change(Some(("lost", 30)), &said("under_review", 20)), None);
        assert_eq!(
            change(Some(("lost", 30)), &said("needs_response", 40)),
            None
        );
        assert_eq!(
            change(Some(("under_review", 20)), &said("under_review", 25)),
            None
        );
        // First heard of once over.
        assert_eq!(change(None, &said("won", 50)), Some(&DISPUTE_CLOSED));
    }
}
