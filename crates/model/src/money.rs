//! An amount in a currency's minor unit. Floats never touch money: values are integers from
//! the wire to the database.

use crate::currency::Currency;
use crate::minor_units::deserialize_minor_units;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    #[error("an amount must not be negative")]
    Negative,
    #[error("amounts in different currencies cannot be combined")]
    CurrencyMismatch,
    #[error("the amount is too large")]
    Overflow,
}

/// `value` counts minor units (1050 CHF is CHF 10.50) and is never negative; build through
/// [`Money::new`] when the value is not already known to be valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Money {
    pub value: i64,
    pub currency: Currency,
}

impl Money {
    pub fn new(value: i64, currency: Currency) -> Result<Self, MoneyError> {
        if value < 0 {
            return Err(MoneyError::Negative);
        }
        Ok(Self { value, currency })
    }

    pub fn zero(currency: Currency) -> Self {
        Self { value: 0, currency }
    }

    pub fn is_zero(&self) -> bool {
        self.value == 0
    }

    pub fn checked_add(&self, other: Money) -> Result<Money, MoneyError> {
        self.same_currency(other)?;
        let value = self
            .value
            .checked_add(other.value)
            .ok_or(MoneyError::Overflow)?;
        Money::new(value, self.currency)
    }

    /// Fails rather than going below zero, e.g. when a refund exceeds what is left of a payment.
    pub fn checked_sub(&self, other: Money) -> Result<Money, MoneyError> {
        self.same_currency(other)?;
        let value = self
            .value
            .checked_sub(other.value)
            .ok_or(MoneyError::Overflow)?;
        Money::new(value, self.currency)
    }

    fn same_currency(&self, other: Money) -> Result<(), MoneyError> {
        if self.currency == other.currency {
            Ok(())
        } else {
            Err(MoneyError::CurrencyMismatch)
        }
    }

    /// The amount in major units for people to read, e.g. "10.50" for 1050 CHF, using the
    /// currency's exponent and integer arithmetic only.
    pub fn to_major_string(&self) -> String {
        let sign = if self.value < 0 { "-" } else { "" };
        let units = self.value.unsigned_abs();
        let exponent = u32::from(self.currency.exponent());
        if exponent == 0 {
            return format!("{sign}{units}");
        }
        // ISO 4217 exponents stop at 4, far below where 10^e would overflow a u64.
        let scale = 10u64.saturating_pow(exponent);
        let width = exponent as usize;
        format!("{sign}{}.{:0width$}", units / scale, units % scale)
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Money", 2)?;
        s.serialize_field("value", &self.value.to_string())?;
        s.serialize_field("currency", &self.currency)?;
        s.end()
    }
}

// In the API description: `value` as a string of minor units, as Coffer answers it, or
// as an integer, which it also reads.
impl utoipa::PartialSchema for Money {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        let currency = ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^[A-Z]{3}$"))
            .description(Some("ISO 4217 code"))
            .examples([serde_json::json!("CHF")]);
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .property("value", MinorUnits::schema())
            .property("currency", currency)
            .required("value")
            .required("currency")
            .into()
    }
}

/// An amount in minor units as requests may send it: an integer, or its digits as a
/// string (answers always carry the string). Only its schema is used.
pub struct MinorUnits;

impl utoipa::PartialSchema for MinorUnits {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        let digits = ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^[0-9]{1,18}$"));
        let integer = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int64,
            )))
            .minimum(Some(0));
        OneOfBuilder::new()
            .item(digits)
            .item(integer)
            .description(Some("Minor units (cents)"))
            .examples([serde_json::json!("1050")])
            .into()
    }
}

impl utoipa::ToSchema for MinorUnits {}

impl utoipa::ToSchema for Money {}

#[derive(Deserialize)]
struct MoneyWire {
    #[serde(deserialize_with = "deserialize_minor_units")]
    value: i64,
    currency: Currency,
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = MoneyWire::deserialize(deserializer)?;
        if wire.value > wire.currency.max_minor_units() {
            return Err(serde::de::Error::custom(format!(
                "the value must be at most {} minor units in {}",
                wire.currency.max_minor_units(),
                wire.currency.code()
            )));
        }
        Ok(Money {
            value: wire.value,
            currency: wire.currency,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cur(code: &str) -> Currency {
        Currency::parse(code).unwrap()
    }

    #[test]
    fn serialises_value_as_string() {
        let m = Money::new(1050, cur("CHF")).unwrap();
        let json = serde_json::to_value(m).unwrap();
        assert_eq!(json, json!({"value": "1050", "currency": "CHF"}));
        assert_eq!(serde_json::from_value::<Money>(json).unwrap(), m);
    }

    #[test]
    fn deserialises_string_or_integer_value() {
        let expected = Money::new(1050, cur("CHF")).unwrap();
        for body in [
            r#"{"value":"1050","currency":"CHF"}"#,
            r#"{"value":1050,"currency":"CHF"}"#,
        ] {
            assert_eq!(
                serde_json::from_str::<Money>(body).unwrap(),
                expected,
                "{body}"
            );
        }
    }

    #[test]
    fn deserialise_rejects_bad_values() {
        for value in [
            "10.5",
            "10.0",
            "-1",
            "\"-1\"",
            "\"\"",
            "\"+1\"",
            "\" 1\"",
            "\"1a\"",
            "\"9223372036854775808\"",
            "9223372036854775808",
            "null",
            "true",
        ] {
            let body = format!(r#"{{"value":{value},"currency":"CHF"}}"#);
            assert!(serde_json::from_str::<Money>(&body).is_err(), "{body}");
        }
        assert!(serde_json::from_str::<Money>(r#"{"value":"1","currency":"XAU"}"#).is_err());
        assert!(serde_json::from_str::<Money>(r#"{"currency":"CHF"}"#).is_err());
    }

    #[test]
    fn new_refuses_negative() {
        assert_eq!(Money::new(-1, cur("CHF")), Err(MoneyError::Negative));
        assert!(Money::new(0, cur("CHF")).unwrap().is_zero());
    }

    #[test]
    fn arithmetic_stays_in_one_currency_and_above_zero() {
        let ten = Money::new(1000, cur("EUR")).unwrap();
        let four = Money::new(400, cur("EUR")).unwrap();
        assert_eq!(ten.checked_sub(four).unwrap().value, 600);
        assert_eq!(ten.checked_add(four).unwrap().value, 1400);
        assert_eq!(four.checked_sub(ten), Err(MoneyError::Negative));
        let chf = Money::new(1, cur("CHF")).unwrap();
        assert_eq!(ten.checked_add(chf), Err(MoneyError::CurrencyMismatch));
        let max = Money::new(i64::MAX, cur("EUR")).unwrap();
        assert_eq!(max.checked_add(four), Err(MoneyError::Overflow));
    }

    #[test]
    fn major_string_follows_the_exponent() {
        let cases = [
            (1050, "CHF", "10.50"),
            (5, "CHF", "0.05"),
            (0, "CHF", "0.00"),
            (500, "JPY", "500"),
            (1234, "BHD", "1.234"),
            (7, "BHD", "0.007"),
            (12345, "CLF", "1.2345"),
        ];
        for (value, code, expected) in cases {
            let m = Money::new(value, cur(code)).unwrap();
            assert_eq!(m.to_major_string(), expected, "{value} {code}");
        }
        let negative = Money {
            value: -1050,
            currency: cur("CHF"),
        };
        assert_eq!(negative.to_major_string(), "-10.50");
    }
}
