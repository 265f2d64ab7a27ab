//! Exact amounts as the bank wrote them.
//!
//! The value is a `rust_decimal::Decimal`: base ten, 96 bits of digits, so every amount ISO
//! 20022 allows (18 digits, 5 of them after the point) is held exactly, and the
//! reconciliation code gets checked arithmetic and ordering without a home-made type.
//! The digits are read here rather than by `Decimal`'s own parser, which is lenient (it
//! takes `1_000` and `1e3`, and rounds digits it cannot hold): an amount must never change.

use rust_decimal::Decimal;
use serde::{Serialize, Serializer};

/// An amount of money in a currency, exactly as written in the file.
///
/// camt amounts are never negative; the direction is carried beside them
/// ([`crate::Direction`]). Only a [`crate::BatchMismatch`] total can be negative.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Amount {
    /// ISO 4217 code as written, such as `EUR`.
    pub currency: String,
    /// Serialised as its decimal text (`"8.850"`), never as a float.
    #[serde(serialize_with = "decimal_as_text")]
    pub value: Decimal,
}

impl Amount {
    /// The amount in minor units of a currency with `exponent` decimals (2 for EUR, 0 for
    /// JPY). `None` when that would need rounding, such as `0.005` EUR, or when it overflows.
    /// Trailing zeros are not rounding: `8.850` EUR is 885 cents.
    pub fn minor_units(&self, exponent: u32) -> Option<i64> {
        let mantissa = self.value.mantissa();
        let scale = self.value.scale();
        let units = if scale <= exponent {
            mantissa.checked_mul(10i128.checked_pow(exponent - scale)?)?
        } else {
            let divisor = 10i128.checked_pow(scale - exponent)?;
            if mantissa % divisor != 0 {
                return None;
            }
            mantissa / divisor
        };
        i64::try_from(units).ok()
    }
}

fn decimal_as_text<S: Serializer>(value: &Decimal, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// Most digits a `Decimal` holds exactly; ISO 20022 itself allows 18.
const MAX_DIGITS: usize = 28;

/// Reads an xs:decimal that is not negative: digits with at most one point, an optional
/// leading `+`, nothing else. The reason is for [`crate::CamtError::BadAmount`].
pub(crate) fn parse_decimal(text: &str) -> Result<Decimal, &'static str> {
    let unsigned = text.strip_prefix('+').unwrap_or(text);
    if unsigned.starts_with('-') {
        return Err("amounts in camt are never negative; the direction is given separately");
    }
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() {
        return Err("it has no digits");
    }
    if !all_digits(whole) || !all_digits(fraction) {
        return Err("only digits and one decimal point are allowed");
    }
    let whole = whole.trim_start_matches('0');
    if whole.len() + fraction.len() > MAX_DIGITS {
        return Err("it has more digits than can be held exactly");
    }
    // At most 28 digits, so the mantissa stays below 10^28 and fits Decimal's 96 bits; the
    // digits are read directly, which also spares a temporary string per amount.
    let mantissa = whole
        .bytes()
        .chain(fraction.bytes())
        .fold(0i128, |acc, digit| acc * 10 + i128::from(digit - b'0'));
    let scale = u32::try_from(fraction.len()).map_err(|_| "it has too many decimals")?;
    Decimal::try_from_i128_with_scale(mantissa, scale)
        .map_err(|_| "it has more digits than can be held exactly")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn amount(text: &str) -> Amount {
        Amount {
            currency: "EUR".into(),
            value: parse_decimal(text).unwrap(),
        }
    }

    #[test]
    fn keeps_the_written_scale() {
        assert_eq!(parse_decimal("8.850").unwrap().to_string(), "8.850");
        assert_eq!(parse_decimal("200000").unwrap().to_string(), "200000");
        assert_eq!(parse_decimal("+.5").unwrap().to_string(), "0.5");
        assert_eq!(parse_decimal("7.").unwrap().to_string(), "7");
        assert_eq!(
            parse_decimal("0005442.09000").unwrap().to_string(),
            "5442.09000"
        );
    }

    #[test]
    fn refuses_what_is_not_a_plain_decimal() {
        for text in [
            "", ".", "-1.00", "1,00", "1_000", "1e3", " 1", "1.2.3", "0x10", "NaN",
        ] {
            assert!(parse_decimal(text).is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn refuses_digits_it_cannot_hold_instead_of_rounding() {
        assert!(parse_decimal("1.00000000000000000000000000001").is_err());
        // 28 significant digits are held exactly.
        let wide = "1234567890123456789.012345678";
        assert_eq!(parse_decimal(wide).unwrap().to_string(), wide);
    }

    #[test]
    fn minor_units_are_exact() {
        assert_eq!(amount("8.85").minor_units(2), Some(885));
        assert_eq!(amount("8.850").minor_units(2), Some(885));
        assert_eq!(amount("8.5").minor_units(2), Some(850));
        assert_eq!(amount("2700").minor_units(0), Some(2700));
        assert_eq!(amount("200000").minor_units(2), Some(20_000_000));
        assert_eq!(amount("5442.09000").minor_units(2), Some(544_209));
        assert_eq!(amount("1.234").minor_units(3), Some(1234));
    }

    #[test]
    fn minor_units_refuse_to_round() {
        assert_eq!(amount("8.855").minor_units(2), None);
        assert_eq!(amount("0.5").minor_units(0), None);
        assert_eq!(amount("0.00001").minor_units(2), None);
    }

    #[test]
    fn minor_units_refuse_to_overflow() {
        assert_eq!(amount("99999999999999999999").minor_units(2), None);
        assert_eq!(amount("1").minor_units(40), None);
        assert_eq!(
            amount("92233720368547758.07").minor_units(2),
            Some(i64::MAX)
        );
    }

    #[test]
    fn serialises_the_value_as_text() {
        let json = serde_json::to_string(&amount("8.850")).unwrap();
        assert_eq!(json, r#"{"currency":"EUR","value":"8.850"}"#);
    }
}
