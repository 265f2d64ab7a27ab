//! Reading a Money out of a loosely typed request body, where each half of the amount is
//! reported under its own property.

use crate::currency::Currency;
use crate::minor_units::minor_units_from_json;
use crate::money::Money;
use crate::validation::FieldError;

/// The error for an amount above [`Currency::max_minor_units`].
pub fn over_maximum(property: &str, currency: Currency) -> FieldError {
    FieldError::not_valid(
        property,
        format!(
            "must be at most {} minor units in {}",
            currency.max_minor_units(),
            currency.code()
        ),
    )
}

impl Money {
    /// Reads a Money out of a request body, naming `<property>.value` and
    /// `<property>.currency` separately so the client sees every mistake at once.
    pub fn from_json(property: &str, v: &serde_json::Value) -> Result<Money, Vec<FieldError>> {
        let Some(object) = v.as_object() else {
            return Err(vec![FieldError::not_valid(
                property,
                "This value must be an object with value and currency.",
            )]);
        };
        let value_property = format!("{property}.value");
        let value = match object.get("value") {
            None | Some(serde_json::Value::Null) => Err(FieldError::not_null(value_property)),
            Some(raw) => minor_units_from_json(raw)
                .map_err(|e| FieldError::not_valid(value_property, e.to_string())),
        };

        let currency_property = format!("{property}.currency");
        let currency = match object.get("currency") {
            None | Some(serde_json::Value::Null) => Err(FieldError::not_null(currency_property)),
            Some(serde_json::Value::String(code)) => {
                Currency::parse_field(&currency_property, code)
            }
            Some(_) => Err(FieldError::not_valid(
                currency_property,
                "This value must be a currency code string.",
            )),
        };

        match (value, currency) {
            (Ok(value), Ok(currency)) if value > currency.max_minor_units() => {
                Err(vec![over_maximum(&format!("{property}.value"), currency)])
            }
            (Ok(value), Ok(currency)) => Ok(Money { value, currency }),
            (value, currency) => Err(value.err().into_iter().chain(currency.err()).collect()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::validation::codes;
    use serde_json::json;

    #[test]
    fn from_json_accepts_both_value_forms() {
        let a = Money::from_json("amount", &json!({"value": "1050", "currency": "CHF"})).unwrap();
        let b = Money::from_json("amount", &json!({"value": 1050, "currency": "CHF"})).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.value, 1050);
    }

    #[test]
    fn from_json_names_each_property() {
        let errors =
            Money::from_json("amount", &json!({"value": 10.5, "currency": "chf"})).unwrap_err();
        let got: Vec<_> = errors
            .iter()
            .map(|e| (e.property.as_str(), e.code.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("amount.value", codes::NOT_VALID),
                ("amount.currency", codes::NOT_VALID)
            ]
        );

        let errors = Money::from_json("amount", &json!({"currency": null})).unwrap_err();
        let got: Vec<_> = errors
            .iter()
            .map(|e| (e.property.as_str(), e.code.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("amount.value", codes::NOT_NULL),
                ("amount.currency", codes::NOT_NULL)
            ]
        );

        let errors =
            Money::from_json("amount", &json!({"value": "5", "currency": 756})).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].property, "amount.currency");

        let errors = Money::from_json(
            "amount",
            &json!({"value": "10000000000000", "currency": "CHF"}),
        )
        .unwrap_err();
        assert_eq!(errors[0].property, "amount.value");
        let most = Money::from_json(
            "amount",
            &json!({"value": "9999999999999", "currency": "CHF"}),
        );
        assert_eq!(most.unwrap().value, 9_999_999_999_999);
        let yen = Money::from_json(
            "amount",
            &json!({"value": "100000000000", "currency": "JPY"}),
        );
        assert!(yen.is_err());

        let errors = Money::from_json("amount", &json!("1050 CHF")).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].property, "amount");
        assert_eq!(errors[0].code, codes::NOT_VALID);
    }
}
