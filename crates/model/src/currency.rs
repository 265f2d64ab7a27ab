//! ISO 4217 currencies that can carry an amount in minor units.

use crate::serde_str::deserialize_parsed;
use crate::validation::FieldError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CurrencyError {
    #[error("a currency code is three uppercase letters, such as CHF")]
    Format,
    #[error("{0} is not an ISO 4217 currency code")]
    Unknown(String),
    /// Gold, test and "no currency" codes have no minor unit, so no amount can be stored in them.
    #[error("{0} has no minor unit and cannot hold an amount")]
    NoMinorUnit(String),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Currency {
    iso: iso_currency::Currency,
    exponent: u8,
}

impl Currency {
    pub fn parse(code: &str) -> Result<Self, CurrencyError> {
        if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(CurrencyError::Format);
        }
        let iso = iso_currency::Currency::from_code(code)
            .ok_or_else(|| CurrencyError::Unknown(code.to_owned()))?;
        Self::from_iso(iso)
    }

    pub fn parse_field(property: &str, raw: &str) -> Result<Self, FieldError> {
        Self::parse(raw).map_err(|e| FieldError::not_valid(property, e.to_string()))
    }

    /// The exponent is resolved once here so that `exponent()` cannot fail later.
    pub fn from_iso(iso: iso_currency::Currency) -> Result<Self, CurrencyError> {
        iso.exponent()
            .and_then(|e| u8::try_from(e).ok())
            .map(|exponent| Self { iso, exponent })
            .ok_or_else(|| CurrencyError::NoMinorUnit(iso.code().to_owned()))
    }

    pub fn code(&self) -> &'static str {
        self.iso.code()
    }

    /// Number of decimal places between the minor and the major unit (CHF 2, JPY 0, BHD 3).
    /// The largest amount Coffer takes in this currency, in minor units: 10^11 major units
    /// less one minor unit (CHF 99,999,999,999.99, JPY 99,999,999,999). No donation comes
    /// near it, and it keeps every sum Coffer makes of amounts far from overflowing.
    pub fn max_minor_units(&self) -> i64 {
        10i64.pow(11 + u32::from(self.exponent)) - 1
    }

    pub fn exponent(&self) -> u8 {
        self.exponent
    }

    pub fn iso(&self) -> iso_currency::Currency {
        self.iso
    }
}

impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Currency({})", self.code())
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Currency {
    type Err = CurrencyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_parsed(deserializer, Self::parse)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn exponents_come_from_the_standard() {
        assert_eq!(Currency::parse("CHF").unwrap().exponent(), 2);
        assert_eq!(Currency::parse("EUR").unwrap().exponent(), 2);
        assert_eq!(Currency::parse("JPY").unwrap().exponent(), 0);
        assert_eq!(Currency::parse("BHD").unwrap().exponent(), 3);
        assert_eq!(Currency::parse("CHF").unwrap().code(), "CHF");
    }

    #[test]
    fn rejects_malformed_codes() {
        for raw in ["", "chf", "Chf", "CH", "CHFF", " CHF", "CH1", "ÇHF"] {
            assert_eq!(Currency::parse(raw), Err(CurrencyError::Format), "{raw}");
        }
    }

    #[test]
    fn rejects_unknown_codes() {
        assert_eq!(
            Currency::parse("ABC"),
            Err(CurrencyError::Unknown("ABC".to_owned()))
        );
    }

    #[test]
    fn rejects_codes_without_minor_unit() {
        for raw in ["XAU", "XXX", "XTS", "XDR"] {
            assert_eq!(
                Currency::parse(raw),
                Err(CurrencyError::NoMinorUnit(raw.to_owned())),
                "{raw}"
            );
        }
    }

    #[test]
    fn serde_uses_the_code() {
        let chf = Currency::parse("CHF").unwrap();
        assert_eq!(serde_json::to_string(&chf).unwrap(), "\"CHF\"");
        assert_eq!(serde_json::from_str::<Currency>("\"CHF\"").unwrap(), chf);
        assert!(serde_json::from_str::<Currency>("\"XAU\"").is_err());
        assert!(serde_json::from_str::<Currency>("\"chf\"").is_err());
        assert!(serde_json::from_str::<Currency>("756").is_err());
    }

    #[test]
    fn parse_field_names_the_property() {
        let err = Currency::parse_field("amount.currency", "EURO").unwrap_err();
        assert_eq!(err.property, "amount.currency");
        assert_eq!(err.code, crate::validation::codes::NOT_VALID);
    }
}
