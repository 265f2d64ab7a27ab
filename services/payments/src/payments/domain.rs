//! A payment's rules that need neither HTTP nor the database, and what a platform
//! caller's charge of a stored source asks.

use coffer_model::ids::parse_uuid;
use coffer_model::money::Money;
use coffer_model::text_enum;
use coffer_model::validation::FieldError;
use serde_json::{Map, Value, json};

use crate::shared::connector::TEST_PROVIDER;
use crate::shared::method::PaymentMethod;
use crate::shared::record::{BANK_FILE, ChargeState, Payment, PaymentStatus};
use crate::shared::source::Charge;

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
    // A charge waiting for its donor at a provider outside the process (3-D Secure on the
    // payment page) can still be finished there; it ends when the donor finishes or gives
    // up (payments.donor_wait_ms), at the provider first.
    if payment.payment_provider != TEST_PROVIDER && payment.payment_provider != BANK_FILE {
        return Some(
            "The payment waits at its provider, which may still charge it; it ends when the \
             donor finishes or gives up, or the provider decides"
                .into(),
        );
    }
    if payment.payment_method == PaymentMethod::SepaDd {
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

/// What a platform caller's charge asks: an amount above zero, with the subscription it is
/// for and custom parameters when it names them; each offending property is named.
pub(crate) fn requested_charge(body: &Value) -> Result<Charge, Vec<FieldError>> {
    let mut errors = Vec::new();
    let amount = match body.get("amount") {
        Some(value) => match Money::from_json("amount", value) {
            Ok(m) if m.value <= 0 => {
                errors.push(FieldError::not_valid("amount.value", "must be above 0"));
                None
            }
            Ok(m) => Some(m),
            Err(e) => {
                errors.extend(e);
                None
            }
        },
        None => {
            errors.push(FieldError::not_null("amount"));
            None
        }
    };
    let subscription_uuid = match body.get("subscription_uuid") {
        None | Some(Value::Null) => None,
        Some(Value::String(raw)) => match parse_uuid("subscription_uuid", raw) {
            Ok(u) => Some(u.to_string()),
            Err(e) => {
                errors.push(e);
                None
            }
        },
        Some(_) => {
            errors.push(FieldError::not_valid("subscription_uuid", "must be a uuid"));
            None
        }
    };
    let custom_parameters = match body.get("custom_parameters") {
        None | Some(Value::Null) => json!({}),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            errors.push(FieldError::not_valid(
                "custom_parameters",
                "must be a JSON object",
            ));
            json!({})
        }
    };
    match amount {
        Some(amount) if errors.is_empty() => Ok(Charge {
            amount,
            subscription_uuid,
            charge_attempt_uuid: None,
            custom_parameters,
        }),
        _ => Err(errors),
    }
}

/// The body of Charge Payment Source, as the API description shows it.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"amount": {"value": "1050", "currency": "CHF"}}))]
#[allow(dead_code)]
pub(crate) struct ChargeBody {
    /// Above 0, in the source's currency.
    amount: Money,
    #[schema(format = Uuid)]
    subscription_uuid: Option<String>,
    #[schema(value_type = Option<Object>)]
    custom_parameters: Option<Value>,
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

    #[test]
    fn a_charge_needs_an_amount_above_zero() {
        let missing = requested_charge(&json!({})).err().unwrap();
        assert_eq!(missing[0].property, "amount");
        let zero = json!({"amount": {"value": 0, "currency": "CHF"}});
        assert_eq!(
            requested_charge(&zero).err().unwrap()[0].property,
            "amount.value"
        );
    }

    #[test]
    fn a_charge_keeps_its_subscription_and_object_parameters_and_names_the_rest() {
        let amount = json!({"value": 500, "currency": "CHF"});
        let subscription = "5f0c4a52-8c2f-4d36-9a86-1b6ad2f8c7b1";
        let charge =
            requested_charge(&json!({"amount": amount, "subscription_uuid": subscription}))
                .ok()
                .unwrap();
        assert_eq!(charge.amount.value, 500);
        assert_eq!(charge.subscription_uuid.as_deref(), Some(subscription));
        assert_eq!(charge.charge_attempt_uuid, None);
        assert_eq!(charge.custom_parameters, json!({}));
        let refused = requested_charge(
            &json!({"amount": amount, "subscription_uuid": "s", "custom_parameters": [1]}),
        )
        .err()
        .unwrap();
        let properties: Vec<&str> = refused.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(properties, ["subscription_uuid", "custom_parameters"]);
        let kept = requested_charge(&json!({"amount": amount, "custom_parameters": {"a": 1}}))
            .ok()
            .unwrap();
        assert_eq!(kept.custom_parameters, json!({"a": 1}));
    }
}
