//! A payment source's rules that need neither HTTP nor the database: its statuses, which
//! source may be charged, and what a charge of one asks.

use coffer_model::ids::parse_uuid;
use coffer_model::money::Money;
use coffer_model::text_enum;
use coffer_model::validation::FieldError;
use serde_json::{Value, json};

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
pub(crate) struct Charge {
    pub amount: Money,
    pub subscription_uuid: Option<String>,
    pub charge_attempt_uuid: Option<String>,
    pub custom_parameters: Value,
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
