//! ISO 3166-1 alpha-2 country codes, checked against `isocountry`.

use crate::validation::FieldError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountryError {
    #[error("a country code is two letters, such as CH")]
    Format,
    #[error("{0} is not an ISO 3166-1 country code")]
    Unknown(String),
}

/// Always uppercase, whatever case it arrived in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CountryCode(String);

impl CountryCode {
    pub fn parse(raw: &str) -> Result<CountryCode, CountryError> {
        if raw.len() != 2 || !raw.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(CountryError::Format);
        }
        let upper = raw.to_ascii_uppercase();
        isocountry::CountryCode::for_alpha2(&upper)
            .map(|c| CountryCode(c.alpha2().to_owned()))
            .map_err(|_| CountryError::Unknown(upper))
    }

    pub fn parse_field(property: &str, raw: &str) -> Result<CountryCode, FieldError> {
        Self::parse(raw).map_err(|e| FieldError::not_valid(property, e.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

crate::serde_str::validated_string!(CountryCode);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn accepts_any_case_and_stores_uppercase() {
        for raw in ["CH", "ch", "Ch"] {
            assert_eq!(CountryCode::parse(raw).unwrap().as_str(), "CH");
        }
        assert_eq!(CountryCode::parse("de").unwrap().as_str(), "DE");
    }

    #[test]
    fn rejects_malformed_and_unknown() {
        for raw in ["", "C", "CHE", "C1", " C", "ÇH"] {
            assert_eq!(CountryCode::parse(raw), Err(CountryError::Format), "{raw}");
        }
        assert_eq!(
            CountryCode::parse("zz"),
            Err(CountryError::Unknown("ZZ".to_owned()))
        );
    }

    #[test]
    fn serde_round_trip() {
        let c: CountryCode = serde_json::from_str("\"at\"").unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), "\"AT\"");
        assert!(serde_json::from_str::<CountryCode>("\"AUT\"").is_err());
    }

    #[test]
    fn parse_field_names_the_property() {
        let err = CountryCode::parse_field("main_address.country", "XX").unwrap_err();
        assert_eq!(err.property, "main_address.country");
    }
}
