//! A payment's rules that need neither HTTP nor the database.

use coffer_model::text_enum;
use serde_json::{Map, Value};

use crate::shared::record::{BANK_FILE, ChargeState, Payment, PaymentStatus};

text_enum! {
    /// A donor's answer on the test provider's page.
    pub enum Decision {
        Approve => "approve",
        Decline => "decline",
    }
}

impl Decision {
    /// The payment's status once the donor has answered, with why it failed.
    pub fn outcome(self) -> (PaymentStatus, Option<&'static str>) {
        match self {
            Decision::Approve => (PaymentStatus::Succeeded, None),
            Decision::Decline => (PaymentStatus::Failed, Some("authentication_failed")),
        }
    }
}

/// Whether a payment or source waits for its donor's decision at a provider's page: pending
/// with a redirect to follow. A pending one without it waits for its bank (a direct debit)
/// or its provider (a charge of a stored source, billing's attempts), and no page may decide
/// it: only the donor it redirected may.
pub fn awaits_donor(pending: bool, action: Option<&Value>) -> bool {
    pending && action.is_some_and(|a| a["type"] == "redirect")
}

/// Where a donor is sent back to once they have decided: the merchant's `url`, told the
/// `status` of the payment or source `uuid` (named by `key`).
pub fn return_location(url: &str, key: &str, uuid: &str, status: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{key}={uuid}&status={status}")
}

/// Why `payment` cannot be cancelled now, if it cannot (SPEC.md: cancelling is limited by
/// status, provider and method): only a pending one can, and not while its provider is
/// being asked (the answer would undo the cancel), nor a direct debit, which is with the
/// bank from the moment it is made: the bank collects or returns it, and a cancel would
/// not stop the money (a collected one is refunded instead).
pub fn cancel_refusal(payment: &Payment) -> Option<String> {
    if payment.status != PaymentStatus::Pending {
        return Some(not_cancellable(
            payment.status,
            payment.payment_provider == BANK_FILE,
        ));
    }
    if payment.charge_state != ChargeState::Done {
        return Some(
            "The payment's provider is being asked about it; cancel it once it has answered".into(),
        );
    }
    if payment.payment_method == "sepa_dd" {
        return Some(
            "A direct debit is with the bank once it is made: the bank collects or returns it, \
             and one collected is refunded rather than cancelled"
                .into(),
        );
    }
    None
}

/// Why a payment in `status` cannot be cancelled: only a pending one can, and a succeeded
/// one is refunded instead, through Coffer unless it was read from a bank file.
pub fn not_cancellable(status: PaymentStatus, from_bank_file: bool) -> String {
    let hint = match (status, from_bank_file) {
        (PaymentStatus::Succeeded, false) => "; refund it instead",
        (PaymentStatus::Succeeded, true) => {
            "; it was read from a bank file, so pay it back by bank transfer"
        }
        _ => "",
    };
    format!("Only a pending payment can be cancelled; this one is {status}{hint}")
}

/// The custom parameters after a change: `incoming` replaces `current`, or with `merge`
/// goes over it, a key set to null removing it.
pub fn merged_parameters(current: &Value, incoming: Map<String, Value>, merge: bool) -> Value {
    let mut next = if merge {
        current.as_object().cloned().unwrap_or_default()
    } else {
        Map::new()
    };
    for (key, value) in incoming {
        if merge && value.is_null() {
            next.remove(&key);
        } else {
            next.insert(key, value);
        }
    }
    Value::Object(next)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_merge_keeps_removes_and_adds_a_replace_starts_afresh() {
        let current = json!({"a": 1, "b": 2});
        let incoming = json!({"a": null, "c": 3}).as_object().cloned().unwrap();
        assert_eq!(
            merged_parameters(&current, incoming.clone(), true),
            json!({"b": 2, "c": 3})
        );
        assert_eq!(
            merged_parameters(&current, incoming, false),
            json!({"a": null, "c": 3})
        );
    }

    #[test]
    fn a_declined_payment_fails_for_its_authentication() {
        assert_eq!(
            Decision::parse("approve").map(Decision::outcome),
            Some((PaymentStatus::Succeeded, None))
        );
        assert_eq!(
            Decision::parse("decline").map(Decision::outcome),
            Some((PaymentStatus::Failed, Some("authentication_failed")))
        );
        assert_eq!(Decision::parse("maybe"), None);
    }

    #[test]
    fn the_donor_goes_back_with_the_outcome_added_to_the_query() {
        assert_eq!(
            return_location("https://x.org/done", "payment_uuid", "u", "succeeded"),
            "https://x.org/done?payment_uuid=u&status=succeeded"
        );
        assert_eq!(
            return_location(
                "https://x.org/done?a=1",
                "payment_source_uuid",
                "u",
                "failed"
            ),
            "https://x.org/done?a=1&payment_source_uuid=u&status=failed"
        );
    }

    #[test]
    fn a_succeeded_payment_is_refunded_instead() {
        assert!(not_cancellable(PaymentStatus::Succeeded, false).ends_with("refund it instead"));
        assert!(not_cancellable(PaymentStatus::Succeeded, true).ends_with("by bank transfer"));
        assert!(!not_cancellable(PaymentStatus::Failed, false).contains("refund"));
    }
}
