//! A payment source's rules that need neither HTTP nor the database: what a platform
//! caller's charge of one asks (its statuses, and the charge itself, are in
//! shared/source.rs, which payments holds too).

use coffer_model::ids::parse_uuid;
use coffer_model::money::Money;
use coffer_model::validation::FieldError;
use serde_json::{Value, json};

use crate::shared::source::Charge;

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
