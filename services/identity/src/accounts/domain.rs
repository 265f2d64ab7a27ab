//! Accounts and their billing data as operators set them: the checks before they are stored.

use coffer_model::email::Email;
use coffer_model::iban::Iban;
use coffer_model::validation::{FieldError, Violations};

use crate::address::{AddressInput, not_blank};

/// An account's name, trimmed; it must not be blank.
pub fn account_name(name: &str) -> Result<String, Vec<FieldError>> {
    let name = name.trim();
    if name.is_empty() {
        return Err(vec![FieldError::not_blank("name")]);
    }
    Ok(name.to_owned())
}

#[derive(Debug, Clone, Default)]
pub struct BillingInput {
    pub account_holder: String,
    pub iban: String,
    pub vat_number: String,
    pub recipient_emails: Vec<String>,
    pub address: AddressInput,
}

impl BillingInput {
    pub fn validate(mut self) -> Result<BillingInput, Vec<FieldError>> {
        let mut v = Violations::default();
        not_blank(&mut v, "account_holder", &self.account_holder);
        if let Some(iban) = v.check(Iban::parse_field("iban", &self.iban)) {
            self.iban = iban.as_str().to_owned();
        }
        for (i, email) in self.recipient_emails.iter().enumerate() {
            v.check(Email::parse_field(&format!("recipient_emails[{i}]"), email));
        }
        // A billing address has no type of its own; the check wants one.
        self.address.kind = "billing".into();
        match std::mem::take(&mut self.address).validate() {
            Ok(address) => self.address = address,
            Err(errors) => v.extend(errors.into_iter().map(|mut e| {
                e.property = format!("address.{}", e.property);
                e
            })),
        }
        v.finish(self)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn billing_errors_are_prefixed() {
        let b = BillingInput {
            account_holder: "Acme".into(),
            iban: "CH00 0000".into(),
            recipient_emails: vec!["nope".into()],
            address: AddressInput {
                country_code: "XX".into(),
                ..Default::default()
            },
            ..Default::default()
        };
        let props: Vec<_> = b
            .validate()
            .unwrap_err()
            .into_iter()
            .map(|e| e.property)
            .collect();
        assert!(props.contains(&"iban".to_owned()));
        assert!(props.contains(&"recipient_emails[0]".to_owned()));
        assert!(props.contains(&"address.country_code".to_owned()));
        assert!(props.contains(&"address.city".to_owned()));
    }
}
