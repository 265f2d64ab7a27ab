//! Stripe's objects as Coffer reads them: only the fields it uses, so a field Stripe adds
//! or a version moves changes nothing here (the version is pinned in client.rs).

use std::collections::BTreeMap;

use serde::Deserialize;

/// `GET/POST /v1/payment_intents...`: one charge attempt at Stripe.
#[derive(Debug, Clone, Deserialize)]
pub struct PaymentIntent {
    pub id: String,
    pub status: IntentStatus,
    pub amount: i64,
    pub currency: String,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    pub last_payment_error: Option<ErrorBody>,
    pub next_action: Option<NextAction>,
    /// Set only on the charges of payment sources, which charge a Customer's method.
    #[serde(default)]
    pub customer: Option<String>,
    // `client_secret` is not read: with the publishable key it confirms the intent, so it
    // must not sit in a struct that derives Debug. The payment page reads it on its own.
}

/// A PaymentIntent's states, as Stripe names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentStatus {
    RequiresPaymentMethod,
    RequiresConfirmation,
    RequiresAction,
    Processing,
    RequiresCapture,
    Canceled,
    Succeeded,
}

/// What the donor must do before a PaymentIntent can go on (3-D Secure).
#[derive(Debug, Clone, Deserialize)]
pub struct NextAction {
    #[serde(rename = "type")]
    pub kind: String,
    pub redirect_to_url: Option<RedirectToUrl>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RedirectToUrl {
    pub url: Option<String>,
}

/// `POST /v1/payment_methods`: a card or a bank account, by its id.
#[derive(Debug, Clone, Deserialize)]
pub struct PaymentMethod {
    pub id: String,
}

/// A dispute (chargeback) of a charge, as `charge.dispute.*` events carry it.
#[derive(Debug, Clone, Deserialize)]
pub struct Dispute {
    pub id: String,
    /// In Stripe's smallest unit of `currency`.
    pub amount: i64,
    pub currency: String,
    /// The PaymentIntent whose charge is disputed.
    pub payment_intent: Option<String>,
    pub reason: String,
    pub status: String,
}

/// A transfer of the account's balance to its bank, as `payout.*` events carry it.
#[derive(Debug, Clone, Deserialize)]
pub struct Payout {
    pub id: String,
    /// In Stripe's smallest unit of `currency`.
    pub amount: i64,
    pub currency: String,
    /// When the bank is expected to credit it (Unix seconds).
    pub arrival_date: i64,
    /// What the bank statement shows beside the credit, when the account set one.
    #[serde(default)]
    pub statement_descriptor: Option<String>,
}

/// `POST /v1/customers`: whom a stored payment method belongs to.
#[derive(Debug, Clone, Deserialize)]
pub struct Customer {
    pub id: String,
}

/// `POST /v1/setup_intents`: a payment method kept for charges without the payer.
#[derive(Debug, Clone, Deserialize)]
pub struct SetupIntent {
    pub id: String,
    pub status: SetupStatus,
    pub last_setup_error: Option<ErrorBody>,
}

/// A SetupIntent's states, as Stripe names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetupStatus {
    RequiresPaymentMethod,
    RequiresConfirmation,
    RequiresAction,
    Processing,
    Canceled,
    Succeeded,
}

/// `GET /v1/tokens/{id}`: a card Stripe's browser script took from the donor, by the id
/// of the card it made.
#[derive(Debug, Clone, Deserialize)]
pub struct Token {
    pub id: String,
    pub card: Option<PaymentMethod>,
}

/// `POST /v1/refunds`.
#[derive(Debug, Clone, Deserialize)]
pub struct Refund {
    pub id: String,
    pub status: String,
    pub amount: i64,
    pub failure_reason: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
}

/// A list Stripe pages with `starting_after`.
#[derive(Debug, Clone, Deserialize)]
pub struct List<T> {
    pub data: Vec<T>,
    #[serde(default)]
    pub has_more: bool,
}

/// The `error` of an answer that is not 2xx, and a PaymentIntent's `last_payment_error`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ErrorBody {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub code: Option<String>,
    pub decline_code: Option<String>,
    pub message: Option<String>,
    /// The charge a declined card made.
    pub charge: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(super) struct ErrorAnswer {
    pub error: ErrorBody,
}
