//! What an agreement is, and how a subscription as billing announced it is read: no
//! HTTP, no SQL.

use coffer_model::text_enum;
use serde::Serialize;
use serde_json::{Map, Value};

text_enum! {
    /// Whether an agreement pledges one payment or a series.
    pub enum AgreementType {
        /// A payment source no subscription uses: a mandate or a stored card given once.
        OneOff => "one_off",
        /// A subscription, charged on its interval.
        Recurring => "recurring",
    }
}

/// A payment agreement as a search hit shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// The subscription's uuid for a recurring agreement, the source's for a one-off one.
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    #[serde(rename = "type")]
    pub agreement_type: AgreementType,
    /// A recurring agreement's is its subscription's (`pending`, `active`, `suspended`,
    /// `cancelled`, `ended`); a one-off one's is its source's (`pending`, `active`, `failed`).
    pub status: String,
    /// Minor units of `currency`; null on a one-off agreement, whose source names no amount.
    pub amount: Option<i64>,
    pub currency: Option<String>,
    /// The subscription's `recurring_interval` in its long (cron) form; null when one-off.
    pub interval: Option<String>,
    pub supporter_uuid: Option<String>,
    /// As a payment's hit shows its supporter: `uuid` and the personal fields that are set.
    pub supporter: Option<Value>,
    pub payment_method: String,
    pub payment_source_uuid: String,
    pub subscription_uuid: Option<String>,
    /// The source's SEPA mandate reference; null for other methods.
    pub mandate_reference: Option<String>,
    pub custom_parameters: Value,
    pub test_mode: bool,
    pub created: i64,
}

/// A supporter record (as its Get answers it) shown inside an agreement: what is the
/// record's own bookkeeping, and its custom parameters, which the agreement's own would be
/// mistaken for, are left out, as on a payment.
pub fn shown_supporter(record: Value) -> Value {
    let mut record = record;
    if let Some(fields) = record.as_object_mut() {
        for own in [
            "organisation_uuid",
            "created",
            "service_parameters",
            "custom_parameters",
        ] {
            fields.remove(own);
        }
    }
    record
}

/// What payments keeps of a subscription: enough to answer it as an agreement.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptSubscription {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub supporter_uuid: Option<String>,
    pub payment_source_uuid: String,
    pub payment_method: String,
    pub test_mode: bool,
    pub status: String,
    pub amount: i64,
    pub currency: String,
    pub recurring_interval: String,
    pub custom_parameters: Map<String, Value>,
    pub created: i64,
}

impl KeptSubscription {
    /// Reads the subscription billing announced (`data`, as Get Subscription answers it), or
    /// says which field it lacks.
    pub fn announced(uuid: &str, data: &Value) -> Result<Self, String> {
        let text = |field: &str| {
            data[field]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("the subscription has no {field}"))
        };
        let number = |field: &str| {
            data[field]
                .as_i64()
                .ok_or_else(|| format!("the subscription has no {field}"))
        };
        Ok(KeptSubscription {
            uuid: uuid.to_owned(),
            organisation_uuid: text("organisation_uuid")?,
            account_uuid: text("account_uuid")?,
            supporter_uuid: data["supporter_uuid"].as_str().map(str::to_owned),
            payment_source_uuid: text("payment_source_uuid")?,
            payment_method: text("payment_method")?,
            test_mode: data["test_mode"].as_bool().unwrap_or(false),
            status: text("subscription_status")?,
            amount: number("amount")?,
            currency: text("currency")?,
            recurring_interval: text("recurring_interval")?,
            custom_parameters: data["custom_parameters"]
                .as_object()
                .cloned()
                .unwrap_or_default(),
            created: number("created")?,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn announced() -> Value {
        json!({"uuid": "s", "organisation_uuid": "o", "account_uuid": "a", "supporter_uuid": null,
            "payment_source_uuid": "p", "payment_method": "sepa_dd", "test_mode": true,
            "subscription_status": "active", "amount": 1500, "currency": "EUR",
            "recurring_interval": "0 0 1 * *", "custom_parameters": {"campaign": "winter"},
            "created": 1_700_000_000, "subscription_plan": {"uuid": "x", "name": "Default"}})
    }

    #[test]
    fn a_subscription_is_read_as_billing_announces_it() {
        let kept = KeptSubscription::announced("s", &announced()).unwrap();
        assert_eq!(kept.status, "active");
        assert_eq!(kept.amount, 1500);
        assert_eq!(kept.supporter_uuid, None);
        assert_eq!(kept.custom_parameters["campaign"], "winter");
    }

    #[test]
    fn a_subscription_without_its_terms_names_what_it_lacks() {
        let mut data = announced();
        data.as_object_mut().unwrap().remove("subscription_status");
        assert_eq!(
            KeptSubscription::announced("s", &data).unwrap_err(),
            "the subscription has no subscription_status"
        );
    }

    #[test]
    fn a_supporter_shows_its_person_not_its_bookkeeping() {
        let record = json!({"uuid": "u", "organisation_uuid": "o", "created": 1,
            "last_name": "Lovelace", "custom_parameters": {}, "service_parameters": {}});
        assert_eq!(
            shown_supporter(record),
            json!({"uuid": "u", "last_name": "Lovelace"})
        );
    }

    #[test]
    fn types_read_back_from_their_text() {
        for t in [AgreementType::OneOff, AgreementType::Recurring] {
            assert_eq!(AgreementType::parse(t.as_str()), Some(t));
        }
    }
}
