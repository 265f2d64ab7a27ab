//! What Stripe's answers mean for Coffer, without any I/O: a PaymentIntent's state as a
//! charge outcome, a refusal as a decline or an unknown outcome, a decline code as the
//! payment's `status_reason`, and which amounts Stripe takes at all.

use coffer_model::money::Money;
use coffer_model::validation::FieldError;

use super::objects::{ErrorBody, IntentStatus, PaymentIntent, Refund, SetupIntent, SetupStatus};
use crate::shared::connector::{ChargeOutcome, RefundOutcome, StoreOutcome};

/// What a refused call means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The card or account said no: the payment failed, with this reason.
    Declined(String),
    /// Stripe may or may not have acted (a 5xx), or asks to be called later (429): the
    /// outcome is settled by asking about the object, never by a call under a new key.
    Unknown,
    /// Stripe refused the request itself (a 4xx that is no decline): Coffer asked for
    /// something this account cannot do. Nothing happened at Stripe.
    Rejected(String),
}

/// Decline codes Coffer passes on as they are. Stripe asks that the codes that point to
/// fraud (lost or stolen card, fraudulent, pickup card) are not shown to whoever paid, so
/// those, and any code not listed, become the generic `card_declined`.
const PASSED_ON: &[&str] = &[
    "authentication_failed",
    "insufficient_funds",
    "expired_card",
    "incorrect_cvc",
    "incorrect_number",
    "processing_error",
    "authentication_required",
    "card_not_supported",
    "currency_not_supported",
    "withdrawal_count_limit_exceeded",
    "card_velocity_exceeded",
    // A direct debit the payer's bank refused.
    "account_closed",
    "account_frozen",
    "bank_account_restricted",
    "bank_ownership_changed",
    "debit_not_authorized",
    "incorrect_account_holder_name",
    "invalid_account_number",
    "no_account",
];
const DECLINED: &str = "card_declined";

/// The payment's outcome from a PaymentIntent's state; None while Stripe still waits for
/// Coffer (`requires_confirmation`, or a payment method not yet given).
pub fn charge_outcome(intent: &PaymentIntent) -> Option<ChargeOutcome> {
    let id = intent.id.clone();
    Some(match intent.status {
        IntentStatus::Succeeded => ChargeOutcome::Succeeded {
            provider_payment_id: id,
        },
        IntentStatus::Processing | IntentStatus::RequiresCapture => ChargeOutcome::Pending {
            provider_payment_id: id,
            redirect: None,
        },
        IntentStatus::RequiresAction => ChargeOutcome::Pending {
            redirect: intent
                .next_action
                .as_ref()
                .and_then(|a| a.redirect_to_url.as_ref())
                .and_then(|r| r.url.clone()),
            provider_payment_id: id,
        },
        IntentStatus::Canceled => ChargeOutcome::Failed {
            provider_payment_id: id,
            reason: "canceled".to_owned(),
        },
        // Confirmed and declined: Stripe asks for another payment method.
        IntentStatus::RequiresPaymentMethod => match &intent.last_payment_error {
            Some(error) => ChargeOutcome::Failed {
                provider_payment_id: id,
                reason: decline_reason(error),
            },
            None => return None,
        },
        IntentStatus::RequiresConfirmation => return None,
    })
}

/// What Coffer does with a PaymentIntent it confirmed or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// Decided: the payment's outcome.
    Decided(ChargeOutcome),
    /// Nobody confirmed it: cancelled, it can never charge.
    Unconfirmed,
    /// It waits for the donor (3-D Secure) with nowhere to send them: Coffer sends no
    /// `return_url` yet, so Stripe offers only its own browser script. Cancelled, the
    /// payment fails with `authentication_required`.
    NeedsDonor,
    /// Stripe is still deciding (`processing`): read again later.
    Deciding,
}

/// A PaymentIntent's state as [`Reading`].
pub fn reading(intent: &PaymentIntent) -> Reading {
    match intent.status {
        IntentStatus::Processing => Reading::Deciding,
        IntentStatus::RequiresAction => match charge_outcome(intent) {
            Some(
                outcome @ ChargeOutcome::Pending {
                    redirect: Some(_), ..
                },
            ) => Reading::Decided(outcome),
            _ => Reading::NeedsDonor,
        },
        _ => charge_outcome(intent).map_or(Reading::Unconfirmed, Reading::Decided),
    }
}

/// Whether a found intent is the payment's as Coffer made it: its amount and currency.
pub fn same_money(intent: &PaymentIntent, amount: Money) -> bool {
    stripe_amount(&amount).is_ok_and(|a| a == intent.amount)
        && intent.currency.eq_ignore_ascii_case(amount.currency.code())
}

/// A Refund as Coffer records it.
pub fn refund_outcome(refund: &Refund) -> RefundOutcome {
    match refund.status.as_str() {
        "failed" | "canceled" => RefundOutcome::Failed {
            reason: refund
                .failure_reason
                .clone()
                .unwrap_or_else(|| "refund_failed".into()),
        },
        // `pending` and `requires_action` are on their way, and card refunds nearly always
        // arrive. A refund that fails later is reported by Stripe's `charge.refund.updated`
        // event, which Coffer does not read yet (docs/payments.md, "Connecting Stripe").
        _ => RefundOutcome::Succeeded {
            provider_refund_id: refund.id.clone(),
        },
    }
}

/// Errors that say a request under this key may have taken effect, or may still: the key
/// is in use by a request still running (409), it came back with other values than the
/// first time, or the intent has moved on (a repeated confirm of one already confirmed).
/// Each is settled by reading the object, like a 5xx.
const UNSETTLED: &[&str] = &[
    "idempotency_key_in_use",
    "idempotency_error",
    "payment_intent_unexpected_state",
];

/// A refused call's meaning, by its status and error.
pub fn refusal(status: u16, error: &ErrorBody) -> Refusal {
    let unsettled = [error.code.as_deref(), error.kind.as_deref()]
        .into_iter()
        .flatten()
        .any(|code| UNSETTLED.contains(&code));
    let declined = status == 402
        || error.kind.as_deref() == Some("card_error")
        || error.decline_code.is_some()
        || error.code.as_deref() == Some(DECLINED);
    match status {
        409 | 429 | 500..=599 => Refusal::Unknown,
        _ if unsettled => Refusal::Unknown,
        _ if declined => Refusal::Declined(decline_reason(error)),
        // Only Stripe's code, never its message: a message may quote what was sent.
        _ => Refusal::Rejected(
            error
                .code
                .clone()
                .unwrap_or_else(|| format!("refused with {status}")),
        ),
    }
}

/// The `status_reason` of a payment Stripe declined.
pub fn decline_reason(error: &ErrorBody) -> String {
    // The donor's bank refused the challenge (3-D Secure): said as Coffer says it.
    if error.code.as_deref() == Some("payment_intent_authentication_failure") {
        return "authentication_failed".to_owned();
    }
    [error.decline_code.as_deref(), error.code.as_deref()]
        .into_iter()
        .flatten()
        .find(|code| PASSED_ON.contains(code))
        .unwrap_or(DECLINED)
        .to_owned()
}

/// A payment method kept at Stripe for a payment source, as the source's reference names
/// it: `<type>:<customer>:<payment method>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept<'a> {
    pub method_type: &'a str,
    pub customer: &'a str,
    pub method: &'a str,
}

/// The reference a payment source keeps of a method kept at Stripe.
pub fn kept_reference(method_type: &str, customer: &str, method: &str) -> String {
    format!("{method_type}:{customer}:{method}")
}

/// A source's reference read back; None for one Coffer did not write.
pub fn read_reference(reference: &str) -> Option<Kept<'_>> {
    let mut parts = reference.splitn(3, ':');
    let kept = Kept {
        method_type: parts.next()?,
        customer: parts.next()?,
        method: parts.next()?,
    };
    let known = matches!(kept.method_type, "card" | "sepa_debit")
        && kept.customer.starts_with("cus_")
        && !kept.method.is_empty();
    known.then_some(kept)
}

/// A confirmed SetupIntent as the source it keeps (`reference`), or why it keeps none.
pub fn setup_outcome(setup: &SetupIntent, reference: String) -> StoreOutcome {
    match setup.status {
        // A debit's mandate may still be on its way to the bank: charges may go ahead.
        SetupStatus::Succeeded | SetupStatus::Processing => StoreOutcome::Active { reference },
        SetupStatus::Canceled => StoreOutcome::Failed {
            reason: "canceled".into(),
        },
        _ => StoreOutcome::Failed {
            reason: setup
                .last_setup_error
                .as_ref()
                .map_or_else(|| "setup_incomplete".to_owned(), decline_reason),
        },
    }
}

/// Why Stripe would refuse a SEPA direct debit of `amount` from a payer reached at
/// `email`, before any call: it collects euros only, and mails the payer before each
/// collection (SEPA's pre-notification), so it needs their address.
pub fn debit_refused(amount: Option<Money>, email: Option<&str>) -> Vec<FieldError> {
    let mut refused = Vec::new();
    if let Some(amount) = amount
        && amount.currency.code() != "EUR"
    {
        refused.push(FieldError::not_valid(
            "amount.currency",
            "Stripe collects SEPA direct debits in EUR only",
        ));
    }
    if email.is_none() {
        refused.push(FieldError::not_valid(
            "supporter.email",
            "is required: Stripe tells the payer of each SEPA direct debit by e-mail",
        ));
    }
    refused
}

/// Why Stripe would refuse an amount, said before any call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountRefused {
    #[error("Stripe charges at least {minimum} {currency} minor units")]
    BelowMinimum {
        minimum: i64,
        currency: &'static str,
    },
    #[error(
        "Stripe counts {0} in other units than Coffer; Coffer does not charge it through Stripe"
    )]
    OtherUnits(&'static str),
}

/// The amount as Stripe takes it: Coffer's minor units are ISO 4217's, which are Stripe's
/// smallest unit except for the currencies listed in `OTHER_UNITS`.
pub fn stripe_amount(money: &Money) -> Result<i64, AmountRefused> {
    let currency = money.currency.code();
    if OTHER_UNITS.contains(&currency) {
        return Err(AmountRefused::OtherUnits(currency));
    }
    match minimum_charge(currency) {
        Some(minimum) if money.value < minimum => {
            Err(AmountRefused::BelowMinimum { minimum, currency })
        }
        _ => Ok(money.value),
    }
}

/// Currencies Stripe writes with more decimals than ISO 4217 (Icelandic krona and Ugandan
/// shilling, two-decimal there for backwards compatibility), so one Coffer unit is not one
/// Stripe unit; refused rather than guessed.
const OTHER_UNITS: &[&str] = &["ISK", "UGX"];

/// Stripe's smallest charge in a currency, in its minor units (Stripe's table of minimum
/// charge amounts); None where Stripe names none.
pub fn minimum_charge(currency: &str) -> Option<i64> {
    Some(match currency {
        "USD" | "AUD" | "BRL" | "CAD" | "CHF" | "EUR" | "INR" | "NZD" | "SGD" => 50,
        "GBP" => 30,
        "JPY" => 50,
        "AED" | "MYR" | "PLN" | "RON" => 200,
        "BGN" => 100,
        "CZK" => 1500,
        "DKK" => 250,
        "HKD" => 400,
        "HUF" => 17500,
        "MXN" | "THB" => 1000,
        "NOK" | "SEK" => 300,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use coffer_model::currency::Currency;

    use super::*;

    #[test]
    fn a_kept_reference_reads_back_and_nothing_else_does() {
        let written = kept_reference("card", "cus_1", "pm_2");
        assert_eq!(
            read_reference(&written),
            Some(Kept {
                method_type: "card",
                customer: "cus_1",
                method: "pm_2"
            })
        );
        for other in [
            "tok_1",
            "card:pm_2",
            "ideal:cus_1:pm_2",
            "card:acct_1:pm_2",
            "",
        ] {
            assert_eq!(read_reference(other), None, "{other}");
        }
    }
    use crate::connectors::stripe::objects::{NextAction, RedirectToUrl};

    fn intent(status: IntentStatus) -> PaymentIntent {
        PaymentIntent {
            id: "pi_1".into(),
            status,
            amount: 1000,
            currency: "chf".into(),
            metadata: Default::default(),
            last_payment_error: None,
            next_action: None,
            customer: None,
        }
    }

    fn error(code: Option<&str>, decline: Option<&str>) -> ErrorBody {
        ErrorBody {
            code: code.map(Into::into),
            decline_code: decline.map(Into::into),
            ..ErrorBody::default()
        }
    }

    #[test]
    fn each_state_is_an_outcome_or_not_yet() {
        assert!(matches!(
            charge_outcome(&intent(IntentStatus::Succeeded)),
            Some(ChargeOutcome::Succeeded { .. })
        ));
        assert!(matches!(
            charge_outcome(&intent(IntentStatus::Processing)),
            Some(ChargeOutcome::Pending { redirect: None, .. })
        ));
        assert_eq!(
            charge_outcome(&intent(IntentStatus::RequiresConfirmation)),
            None
        );
        assert_eq!(
            charge_outcome(&intent(IntentStatus::RequiresPaymentMethod)),
            None
        );
        let mut declined = intent(IntentStatus::RequiresPaymentMethod);
        declined.last_payment_error =
            Some(error(Some("card_declined"), Some("insufficient_funds")));
        assert_eq!(
            charge_outcome(&declined),
            Some(ChargeOutcome::Failed {
                provider_payment_id: "pi_1".into(),
                reason: "insufficient_funds".into()
            })
        );
        let mut action = intent(IntentStatus::RequiresAction);
        action.next_action = Some(NextAction {
            kind: "redirect_to_url".into(),
            redirect_to_url: Some(RedirectToUrl {
                url: Some("https://hooks.stripe.com/x".into()),
            }),
        });
        assert_eq!(
            charge_outcome(&action),
            Some(ChargeOutcome::Pending {
                provider_payment_id: "pi_1".into(),
                redirect: Some("https://hooks.stripe.com/x".into())
            })
        );
    }

    #[test]
    fn fraud_codes_are_not_passed_on() {
        for code in [
            "stolen_card",
            "lost_card",
            "fraudulent",
            "pickup_card",
            "new_code",
        ] {
            assert_eq!(
                decline_reason(&error(Some("card_declined"), Some(code))),
                "card_declined"
            );
        }
        assert_eq!(
            decline_reason(&error(Some("expired_card"), None)),
            "expired_card"
        );
    }

    #[test]
    fn a_refusal_is_a_decline_an_unknown_or_a_rejection() {
        assert_eq!(
            refusal(402, &error(Some("card_declined"), None)),
            Refusal::Declined("card_declined".into())
        );
        // localstripe answers a decline 402 with type invalid_request_error.
        assert_eq!(
            refusal(
                402,
                &ErrorBody {
                    kind: Some("invalid_request_error".into()),
                    code: Some("card_declined".into()),
                    ..ErrorBody::default()
                }
            ),
            Refusal::Declined("card_declined".into())
        );
        assert_eq!(refusal(500, &ErrorBody::default()), Refusal::Unknown);
        assert_eq!(refusal(429, &ErrorBody::default()), Refusal::Unknown);
        // A key still in use, reused with other values, or an intent that moved on: the
        // first request may have charged, so the intent is read, never given up.
        assert_eq!(
            refusal(409, &error(Some("idempotency_key_in_use"), None)),
            Refusal::Unknown
        );
        assert_eq!(
            refusal(
                400,
                &ErrorBody {
                    kind: Some("idempotency_error".into()),
                    ..ErrorBody::default()
                }
            ),
            Refusal::Unknown
        );
        assert_eq!(
            refusal(400, &error(Some("payment_intent_unexpected_state"), None)),
            Refusal::Unknown
        );
        assert_eq!(
            refusal(400, &error(Some("parameter_unknown"), None)),
            Refusal::Rejected("parameter_unknown".into())
        );
    }

    #[test]
    fn amounts_below_stripes_minimum_or_in_other_units_are_refused() {
        let chf = Currency::parse("CHF").unwrap();
        assert_eq!(
            stripe_amount(&Money {
                value: 50,
                currency: chf
            }),
            Ok(50)
        );
        assert_eq!(
            stripe_amount(&Money {
                value: 49,
                currency: chf
            }),
            Err(AmountRefused::BelowMinimum {
                minimum: 50,
                currency: "CHF"
            })
        );
        let isk = Currency::parse("ISK").unwrap();
        assert_eq!(
            stripe_amount(&Money {
                value: 1000,
                currency: isk
            }),
            Err(AmountRefused::OtherUnits("ISK"))
        );
    }

    #[test]
    fn an_intent_nobody_confirmed_is_cancelled_and_one_waiting_for_a_donor_too() {
        assert_eq!(
            reading(&intent(IntentStatus::RequiresConfirmation)),
            Reading::Unconfirmed
        );
        assert_eq!(
            reading(&intent(IntentStatus::RequiresPaymentMethod)),
            Reading::Unconfirmed
        );
        assert_eq!(
            reading(&intent(IntentStatus::Processing)),
            Reading::Deciding
        );
        // 3-D Secure through Stripe's own script only: nowhere to send the donor.
        assert_eq!(
            reading(&intent(IntentStatus::RequiresAction)),
            Reading::NeedsDonor
        );
        let mut declined = intent(IntentStatus::RequiresPaymentMethod);
        declined.last_payment_error = Some(error(Some("card_declined"), None));
        assert!(matches!(
            reading(&declined),
            Reading::Decided(ChargeOutcome::Failed { .. })
        ));
        assert!(matches!(
            reading(&intent(IntentStatus::Succeeded)),
            Reading::Decided(ChargeOutcome::Succeeded { .. })
        ));
    }

    #[test]
    fn a_found_intent_must_carry_the_payments_money() {
        let money = |value, code: &str| Money {
            value,
            currency: code.parse().unwrap(),
        };
        let found = intent(IntentStatus::Succeeded);
        assert!(same_money(&found, money(1000, "CHF")));
        assert!(!same_money(&found, money(999, "CHF")));
        assert!(!same_money(&found, money(1000, "EUR")));
    }

    #[test]
    fn a_refund_on_its_way_counts_and_a_failed_one_says_why() {
        let refund = |status: &str| Refund {
            id: "re_1".into(),
            status: status.into(),
            amount: 100,
            failure_reason: Some("expired_or_canceled_card".into()),
            metadata: Default::default(),
        };
        assert!(matches!(
            refund_outcome(&refund("pending")),
            RefundOutcome::Succeeded { .. }
        ));
        assert_eq!(
            refund_outcome(&refund("failed")),
            RefundOutcome::Failed {
                reason: "expired_or_canceled_card".into()
            }
        );
    }
}
