//! International bank account numbers, checked with `iban_validate` (country format and
//! checksum).

use crate::validation::FieldError;
use ::iban::IbanLike;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IbanError {
    #[error("this value is not a valid IBAN: the format is wrong")]
    Format,
    #[error("this value is not a valid IBAN: the checksum does not match")]
    Checksum,
    #[error("this value is not a valid IBAN: the account part does not fit the country")]
    Bban,
    #[error("this value is not a valid IBAN: the country is not known")]
    UnknownCountry,
}

impl From<::iban::ParseIbanError> for IbanError {
    fn from(e: ::iban::ParseIbanError) -> Self {
        use ::iban::{ParseBaseIbanError, ParseIbanError};
        match e {
            ParseIbanError::InvalidBaseIban {
                source: ParseBaseIbanError::InvalidChecksum,
            } => IbanError::Checksum,
            ParseIbanError::InvalidBaseIban { .. } => IbanError::Format,
            ParseIbanError::InvalidBban(_) => IbanError::Bban,
            ParseIbanError::UnknownCountry(_) => IbanError::UnknownCountry,
        }
    }
}

/// Held in the electronic form (uppercase, no spaces) so that equal accounts compare equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Iban(String);

const GROUP: usize = 4;

impl Iban {
    /// People copy IBANs from letters and statements, so spaces and lowercase are accepted.
    pub fn parse(raw: &str) -> Result<Iban, IbanError> {
        let electronic: String = raw
            .chars()
            .filter(|c| *c != ' ')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        let iban: ::iban::Iban = electronic.parse()?;
        Ok(Iban(iban.electronic_str().to_owned()))
    }

    pub fn parse_field(property: &str, raw: &str) -> Result<Iban, FieldError> {
        Self::parse(raw).map_err(|e| FieldError::not_valid(property, e.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Groups of four separated by single spaces, the way IBANs are printed on paper.
    pub fn to_print_form(&self) -> String {
        let mut out = String::with_capacity(self.0.len() + self.0.len() / GROUP);
        for (i, c) in self.0.chars().enumerate() {
            if i > 0 && i % GROUP == 0 {
                out.push(' ');
            }
            out.push(c);
        }
        out
    }

    pub fn country_code(&self) -> &str {
        self.0.get(..2).unwrap_or_default()
    }
}

crate::serde_str::validated_string!(Iban);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const CH: &str = "CH9300762011623852957";
    const DE: &str = "DE89370400440532013000";

    #[test]
    fn accepts_electronic_print_and_lowercase_forms() {
        for raw in [
            CH,
            "CH93 0076 2011 6238 5295 7",
            "ch93 0076 2011 6238 5295 7",
            "ch9300762011623852957",
        ] {
            assert_eq!(Iban::parse(raw).unwrap().as_str(), CH, "{raw}");
        }
        assert_eq!(Iban::parse(DE).unwrap().country_code(), "DE");
    }

    #[test]
    fn prints_in_groups_of_four() {
        assert_eq!(
            Iban::parse(CH).unwrap().to_print_form(),
            "CH93 0076 2011 6238 5295 7"
        );
        assert_eq!(
            Iban::parse(DE).unwrap().to_print_form(),
            "DE89 3704 0044 0532 0130 00"
        );
    }

    #[test]
    fn rejects_invalid_ibans() {
        assert_eq!(Iban::parse(""), Err(IbanError::Format));
        assert_eq!(Iban::parse("CH93-0076-2011"), Err(IbanError::Format));
        assert_eq!(
            Iban::parse("CH9400762011623852957"),
            Err(IbanError::Checksum)
        );
        assert!(Iban::parse("DE8937040044053201300").is_err());
        assert!(Iban::parse("ÄH9300762011623852957").is_err());
    }

    #[test]
    fn serde_uses_the_electronic_form() {
        let iban: Iban = serde_json::from_str("\"de89 3704 0044 0532 0130 00\"").unwrap();
        assert_eq!(serde_json::to_string(&iban).unwrap(), format!("\"{DE}\""));
        assert!(serde_json::from_str::<Iban>("\"DE00\"").is_err());
    }

    #[test]
    fn parse_field_names_the_property() {
        let err = Iban::parse_field("billing_information.iban", "x").unwrap_err();
        assert_eq!(err.property, "billing_information.iban");
    }
}
