//! E-mail addresses of donors and users, checked with the `email_address` crate.

use crate::validation::FieldError;
use email_address::{EmailAddress, Options};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmailError {
    #[error("an e-mail address must not be empty")]
    Empty,
    #[error("an e-mail address must not start or end with whitespace")]
    Whitespace,
    #[error("this value is not a valid e-mail address: {0}")]
    Invalid(String),
}

/// Stored exactly as given: the local part is case-sensitive by the RFC, so lowering it
/// could address someone else.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Email, EmailError> {
        if raw.is_empty() {
            return Err(EmailError::Empty);
        }
        if raw.trim() != raw {
            return Err(EmailError::Whitespace);
        }
        // A bare, deliverable address only: "Name <a@b>" forms, IP literals and dotless
        // domains have no place in a donor record and would break outgoing mail.
        let options = Options::default()
            .with_required_tld()
            .without_display_text()
            .without_domain_literal();
        EmailAddress::parse_with_options(raw, options)
            .map(|_| Email(raw.to_owned()))
            .map_err(|e| EmailError::Invalid(e.to_string()))
    }

    pub fn parse_field(property: &str, raw: &str) -> Result<Email, FieldError> {
        Self::parse(raw).map_err(|e| FieldError::not_valid(property, e.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

crate::serde_str::validated_string!(Email);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn accepts_and_keeps_as_given() {
        for raw in [
            "donor@example.org",
            "First.Last+tag@Sub.Example.CH",
            "a@b.co",
        ] {
            assert_eq!(Email::parse(raw).unwrap().as_str(), raw);
        }
    }

    #[test]
    fn rejects_bad_addresses() {
        assert_eq!(Email::parse(""), Err(EmailError::Empty));
        assert_eq!(Email::parse(" a@example.org"), Err(EmailError::Whitespace));
        assert_eq!(Email::parse("a@example.org\n"), Err(EmailError::Whitespace));
        for raw in [
            "plainaddress",
            "@example.org",
            "a@",
            "a@localhost",
            "a b@example.org",
            "Donor <donor@example.org>",
            "a@[127.0.0.1]",
            "a@@example.org",
        ] {
            assert!(
                matches!(Email::parse(raw), Err(EmailError::Invalid(_))),
                "{raw}"
            );
        }
    }

    #[test]
    fn serde_goes_through_parse() {
        let e: Email = serde_json::from_str("\"donor@example.org\"").unwrap();
        assert_eq!(serde_json::to_string(&e).unwrap(), "\"donor@example.org\"");
        assert!(serde_json::from_str::<Email>("\"not-an-email\"").is_err());
    }

    #[test]
    fn parse_field_is_not_valid_on_the_property() {
        let err = Email::parse_field("user.email", "nope").unwrap_err();
        assert_eq!(err.property, "user.email");
        assert_eq!(err.code, crate::validation::codes::NOT_VALID);
    }
}
