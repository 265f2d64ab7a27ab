//! A payment source as recorded, which payments and payment sources both hold: its
//! statuses, which source may be charged, and the payment that charges it again.

use coffer_model::money::Money;
use coffer_model::text_enum;
use serde::Serialize;
use serde_json::Value;

use super::method::PaymentMethod;
use super::record::{ChargeState, Payment, PaymentStatus};

text_enum! {
    /// A payment source's status, as answered and as stored.
    pub enum SourceStatus {
        /// Waiting for the donor's agreement at the provider.
        Pending => "pending",
        Active => "active",
        Failed => "failed",
    }
}

impl SourceStatus {
    /// A source kept with a payment waits with it when the donor must act first, and the
    /// donor's decision on the payment decides the source too.
    pub fn kept(awaits_donor: bool) -> Self {
        if awaits_donor {
            SourceStatus::Pending
        } else {
            SourceStatus::Active
        }
    }

    /// A pending source once the donor has decided.
    pub fn decided(approved: bool) -> Self {
        if approved {
            SourceStatus::Active
        } else {
            SourceStatus::Failed
        }
    }
}

/// Why a source in `status` cannot be charged: only an active one can.
pub fn not_chargeable(status: SourceStatus) -> Option<String> {
    (status != SourceStatus::Active).then(|| format!("the payment source is {status}, not active"))
}

/// A charge of a stored source: for billing's charge attempts, and for a platform caller.
pub struct Charge {
    pub amount: Money,
    pub subscription_uuid: Option<String>,
    pub charge_attempt_uuid: Option<String>,
    pub custom_parameters: Value,
}

/// A payment source as answered. `provider_reference` stays inside Coffer.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Source {
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
    #[serde(skip)]
    #[schema(ignore)]
    pub provider_reference: String,
    pub status: SourceStatus,
    pub status_reason: Option<String>,
    /// As sent, with a card's number and cvv left out.
    #[schema(value_type = Object)]
    pub payment_information: serde_json::Value,
    pub supporter_uuid: Option<String>,
    #[schema(value_type = Object)]
    pub custom_parameters: serde_json::Value,
    /// While pending: `{type: "redirect", url}`, where the donor approves.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub action: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_url: Option<String>,
}

impl Source {
    /// The payment that charges this source again, recorded before the provider is asked:
    /// pending, its call `call` (reserved for a worker to send, or calling at once).
    pub fn charged_again(&self, charge: Charge, call: ChargeState, now: i64) -> Payment {
        let payment_id = uuid::Uuid::new_v4();
        // A collection under a mandate of Coffer's: its own EndToEndId, the mandate's
        // reference. A provider that keeps its own mandates (Stripe) left none on the source.
        let sepa = self.payment_method == PaymentMethod::SepaDd
            && self.payment_information.get("mandate_reference").is_some();
        Payment {
            uuid: payment_id.to_string(),
            created: now,
            organisation_uuid: self.organisation_uuid.clone(),
            account_uuid: self.account_uuid.clone(),
            test_mode: self.test_mode,
            payment_method: self.payment_method,
            profile: self.profile.clone(),
            payment_provider: self.payment_provider.clone(),
            provider_payment_id: None,
            status: PaymentStatus::Pending,
            status_reason: None,
            amount: charge.amount,
            refunded_amount: Money {
                value: 0,
                currency: charge.amount.currency,
            },
            refunds: Vec::new(),
            payout_uuid: None,
            value_date: None,
            return_reason: None,
            supporter_uuid: self.supporter_uuid.clone(),
            supporter: None,
            payment_information: self.payment_information.clone(),
            created_payment_source_uuid: None,
            subscription_uuid: charge.subscription_uuid,
            subscription: None,
            custom_parameters: charge.custom_parameters,
            locale: None,
            return_url: None,
            action: None,
            end_to_end_id: sepa.then(|| format!("CF{}", payment_id.simple())),
            mandate_reference: self
                .payment_information
                .get("mandate_reference")
                .and_then(|v| v.as_str())
                .map(str::to_owned),
            charge_attempt_uuid: charge.charge_attempt_uuid,
            cancel_reason: None,
            payment_source_uuid: Some(self.uuid.clone()),
            charge_state: call,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_from_its_text() {
        for status in [
            SourceStatus::Pending,
            SourceStatus::Active,
            SourceStatus::Failed,
        ] {
            assert_eq!(SourceStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(SourceStatus::parse("inactive"), None);
    }

    #[test]
    fn a_source_waits_with_its_payment_and_the_donor_decides_it() {
        assert_eq!(SourceStatus::kept(true), SourceStatus::Pending);
        assert_eq!(SourceStatus::kept(false), SourceStatus::Active);
        assert_eq!(SourceStatus::decided(true), SourceStatus::Active);
        assert_eq!(SourceStatus::decided(false), SourceStatus::Failed);
    }

    #[test]
    fn only_an_active_source_is_charged() {
        assert_eq!(not_chargeable(SourceStatus::Active), None);
        assert_eq!(
            not_chargeable(SourceStatus::Pending).unwrap(),
            "the payment source is pending, not active"
        );
    }
}
