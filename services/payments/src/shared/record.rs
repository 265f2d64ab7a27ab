//! A payment and its refunds, as stored and as answered.

use coffer_model::money::Money;
use coffer_model::text_enum;
use serde::Serialize;

use super::method::PaymentMethod;

/// A payment as answered.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Payment {
    pub uuid: String,
    pub created: i64,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub test_mode: bool,
    // A string in the API description, not a closed list: a method added later changes
    // no client's schema.
    #[schema(value_type = String)]
    pub payment_method: PaymentMethod,
    pub profile: String,
    pub payment_provider: String,
    pub provider_payment_id: Option<String>,
    pub status: PaymentStatus,
    pub status_reason: Option<String>,
    pub amount: Money,
    pub refunded_amount: Money,
    #[schema(value_type = Vec<Refund>)]
    pub refunds: Vec<serde_json::Value>,
    pub supporter_uuid: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub supporter: Option<serde_json::Value>,
    /// As sent, with a card's number and cvv left out.
    #[schema(value_type = Object)]
    pub payment_information: serde_json::Value,
    pub created_payment_source_uuid: Option<String>,
    pub subscription_uuid: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub subscription: Option<serde_json::Value>,
    #[schema(value_type = Object)]
    pub custom_parameters: serde_json::Value,
    pub locale: Option<String>,
    pub return_url: Option<String>,
    /// Where to send the donor when the payment waits for them (3-D Secure, say).
    #[schema(value_type = Option<Object>)]
    pub action: Option<serde_json::Value>,
    /// SEPA direct debit: the collection's EndToEndId, unique, as bank files report it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_to_end_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mandate_reference: Option<String>,
    /// Billing's charge attempt this payment was made for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charge_attempt_uuid: Option<String>,
    /// The reason a client gave when it cancelled the payment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancel_reason: Option<String>,
    /// The stored source this payment charges again, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payment_source_uuid: Option<String>,
    /// The payout that paid it to the account's bank (card, TWINT, PayPal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_uuid: Option<String>,
    /// The day the bank credited it (YYYY-MM-DD): its payout's, or a direct debit's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_date: Option<String>,
    /// Why the bank gave a direct debit back (the ISO code, such as AC06 or MD06).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_reason: Option<String>,
    /// Where its call to the provider stands (see [`ChargeState`]).
    #[serde(skip)]
    #[schema(ignore)]
    pub charge_state: ChargeState,
}

/// The profile and provider of a payment recorded from a bank file.
pub const BANK_FILE: &str = "bank_file";

impl Payment {
    /// A payment the bank reported and no provider made (a direct debit Coffer did not
    /// start, a wire transfer): succeeded, live, with `bank_file` as its profile and
    /// provider. The caller adds who paid and how.
    pub fn from_bank_file(
        uuid: String,
        organisation_uuid: String,
        account_uuid: String,
        payment_method: PaymentMethod,
        amount: Money,
        now: i64,
    ) -> Payment {
        Payment {
            uuid,
            created: now,
            organisation_uuid,
            account_uuid,
            test_mode: false,
            payment_method,
            profile: BANK_FILE.into(),
            payment_provider: BANK_FILE.into(),
            provider_payment_id: None,
            status: PaymentStatus::Succeeded,
            status_reason: None,
            amount,
            refunded_amount: Money {
                value: 0,
                currency: amount.currency,
            },
            refunds: Vec::new(),
            supporter_uuid: None,
            supporter: None,
            payment_information: serde_json::json!({}),
            created_payment_source_uuid: None,
            subscription_uuid: None,
            subscription: None,
            custom_parameters: serde_json::json!({}),
            locale: None,
            return_url: None,
            action: None,
            end_to_end_id: None,
            mandate_reference: None,
            charge_attempt_uuid: None,
            cancel_reason: None,
            payment_source_uuid: None,
            payout_uuid: None,
            value_date: None,
            return_reason: None,
            charge_state: ChargeState::Done,
        }
    }
}

text_enum! {
    /// A payment's status, as answered and as stored.
    pub enum PaymentStatus {
        /// Waiting for the donor, the bank or the provider's answer.
        Pending => "pending",
        Succeeded => "succeeded",
        Failed => "failed",
        Cancelled => "cancelled",
    }
}

text_enum! {
    /// Where a payment's (or a refund's) call to its provider stands. The call is made
    /// between two transactions: the first records the intent, the second the outcome.
    #[derive(Default)]
    pub enum ChargeState {
        /// Recorded, not yet sent (billing's charge attempts, sent by a worker).
        Reserved => "reserved",
        /// Sent, or about to be; the outcome is not known yet.
        Calling => "calling",
        /// The outcome is recorded.
        #[default]
        Done => "done",
    }
}

/// A refund as answered: `{uuid, amount, status}`, with why it failed when it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Refund {
    pub uuid: String,
    pub amount: Money,
    pub status: RefundStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_reason: Option<String>,
    pub created: i64,
}

text_enum! {
    /// Pending while its provider is asked, then succeeded or failed.
    pub enum RefundStatus {
        Pending => "pending",
        Succeeded => "succeeded",
        Failed => "failed",
    }
}
