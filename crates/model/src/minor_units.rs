//! The `value` of a Money: a count of minor units, written as a string of ASCII digits.
//! Clients may send a JSON integer instead, but never a fraction: a float has no exact
//! minor-unit meaning, so even `10.0` is refused rather than guessed at.

use serde::de::{self, Deserializer, Visitor};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MinorUnitsError {
    #[error("the value must not be empty")]
    Empty,
    #[error("the value must be a whole number of minor units written with digits only")]
    NotDigits,
    #[error("the value must not be negative")]
    Negative,
    #[error("the value must be a whole number of minor units, not a decimal")]
    Fraction,
    #[error("the value is too large")]
    TooLarge,
}

/// Digits only: signs, spaces, exponents and separators are all refused, so one amount has
/// exactly one textual form apart from leading zeros.
pub fn parse_minor_units(raw: &str) -> Result<i64, MinorUnitsError> {
    if raw.is_empty() {
        return Err(MinorUnitsError::Empty);
    }
    if !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(MinorUnitsError::NotDigits);
    }
    // Only overflow can fail once every byte is a digit.
    raw.parse::<i64>().map_err(|_| MinorUnitsError::TooLarge)
}

/// Accepts the JSON shapes a client may use for a value, with the same rules as the string form.
pub fn minor_units_from_json(value: &serde_json::Value) -> Result<i64, MinorUnitsError> {
    match value {
        serde_json::Value::String(s) => parse_minor_units(s),
        serde_json::Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                i64::try_from(u).map_err(|_| MinorUnitsError::TooLarge)
            } else if n.as_i64().is_some() {
                Err(MinorUnitsError::Negative)
            } else {
                Err(MinorUnitsError::Fraction)
            }
        }
        _ => Err(MinorUnitsError::NotDigits),
    }
}

/// For `#[serde(deserialize_with = ...)]` on amount fields that are not a whole Money.
pub fn deserialize_minor_units<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<i64, D::Error> {
    deserializer.deserialize_any(MinorUnitsVisitor)
}

struct MinorUnitsVisitor;

impl Visitor<'_> for MinorUnitsVisitor {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative whole number of minor units, as a string of digits")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
        parse_minor_units(v).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        i64::try_from(v).map_err(|_| E::custom(MinorUnitsError::TooLarge))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        if v < 0 {
            Err(E::custom(MinorUnitsError::Negative))
        } else {
            Ok(v)
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<i64, E> {
        i64::try_from(v).map_err(|_| E::custom(MinorUnitsError::TooLarge))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<i64, E> {
        if v < 0 {
            return Err(E::custom(MinorUnitsError::Negative));
        }
        i64::try_from(v).map_err(|_| E::custom(MinorUnitsError::TooLarge))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<i64, E> {
        Err(E::custom(MinorUnitsError::Fraction))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_digit_strings() {
        assert_eq!(parse_minor_units("0"), Ok(0));
        assert_eq!(parse_minor_units("1050"), Ok(1050));
        assert_eq!(parse_minor_units("007"), Ok(7));
        assert_eq!(parse_minor_units("9223372036854775807"), Ok(i64::MAX));
    }

    #[test]
    fn rejects_everything_else() {
        use MinorUnitsError::*;
        let cases = [
            ("", Empty),
            ("-5", NotDigits),
            ("+5", NotDigits),
            (" 5", NotDigits),
            ("5 ", NotDigits),
            ("10.50", NotDigits),
            ("1e3", NotDigits),
            ("1_000", NotDigits),
            ("٣", NotDigits),
            ("9223372036854775808", TooLarge),
        ];
        for (raw, expected) in cases {
            assert_eq!(parse_minor_units(raw), Err(expected), "{raw:?}");
        }
    }

    #[test]
    fn json_numbers_must_be_non_negative_integers() {
        assert_eq!(minor_units_from_json(&json!(1050)), Ok(1050));
        assert_eq!(minor_units_from_json(&json!("1050")), Ok(1050));
        assert_eq!(
            minor_units_from_json(&json!(-1)),
            Err(MinorUnitsError::Negative)
        );
        assert_eq!(
            minor_units_from_json(&json!(10.5)),
            Err(MinorUnitsError::Fraction)
        );
        assert_eq!(
            minor_units_from_json(&json!(10.0)),
            Err(MinorUnitsError::Fraction)
        );
        assert_eq!(
            minor_units_from_json(&json!(u64::MAX)),
            Err(MinorUnitsError::TooLarge)
        );
        assert_eq!(
            minor_units_from_json(&json!(true)),
            Err(MinorUnitsError::NotDigits)
        );
        assert_eq!(
            minor_units_from_json(&json!(null)),
            Err(MinorUnitsError::NotDigits)
        );
    }
}
