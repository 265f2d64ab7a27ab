//! Organisations, accounts and their attachments as operators create them: the checks a
//! new record must pass before it is stored.

use std::collections::BTreeMap;

use coffer_model::country::CountryCode;
use coffer_model::email::Email;
use coffer_model::iban::Iban;
use coffer_model::locale::Locale;
use coffer_model::validation::{FieldError, Violations};

/// Approval states Coffer knows. SPEC.md shows two and says the set is larger; Coffer
/// adds `rejected` (docs/decisions/identity.md).
pub const APPROVAL_STATUSES: [&str; 3] = ["approved", "approval_pending", "rejected"];
pub const ADDRESS_TYPES: [&str; 3] = ["billing", "main", "postal"];

#[derive(Debug, Clone, Default)]
pub struct OrganisationInput {
    pub name: String,
    pub approval_status: Option<String>,
    pub merchant_category_code: Option<String>,
    pub locale: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidOrganisation {
    pub name: String,
    pub approval_status: String,
    pub merchant_category_code: Option<String>,
    pub locale: Option<String>,
}

fn not_blank(v: &mut Violations, property: &str, value: &str) {
    if value.trim().is_empty() {
        v.push(FieldError::not_blank(property));
    }
}

impl OrganisationInput {
    pub fn validate(self) -> Result<ValidOrganisation, Vec<FieldError>> {
        let mut v = Violations::default();
        not_blank(&mut v, "name", &self.name);
        let approval_status = self.approval_status.unwrap_or_else(|| "approved".into());
        if !APPROVAL_STATUSES.contains(&approval_status.as_str()) {
            v.push(FieldError::invalid_choice(
                "approval_status",
                format!("must be one of {}", APPROVAL_STATUSES.join(", ")),
            ));
        }
        // ISO 18245 merchant category codes are four digits.
        if let Some(mcc) = &self.merchant_category_code
            && (mcc.len() != 4 || !mcc.bytes().all(|b| b.is_ascii_digit()))
        {
            v.push(FieldError::not_valid(
                "merchant_category_code",
                "must be four digits",
            ));
        }
        let locale = match self.locale {
            Some(raw) => v
                .check(Locale::parse_field("locale", &raw))
                .map(|l| l.as_str().to_owned()),
            None => None,
        };
        v.finish(ValidOrganisation {
            name: self.name.trim().to_owned(),
            approval_status,
            merchant_category_code: self.merchant_category_code,
            locale,
        })
    }
}

#[derive(Debug, Clone, Default)]
pub struct AddressInput {
    pub address_line1: String,
    pub address_line2: String,
    pub postal_code: String,
    pub city: String,
    pub country_code: String,
    pub kind: String,
}

impl AddressInput {
    pub fn validate(mut self) -> Result<AddressInput, Vec<FieldError>> {
        let mut v = Violations::default();
        not_blank(&mut v, "address_line1", &self.address_line1);
        not_blank(&mut v, "postal_code", &self.postal_code);
        not_blank(&mut v, "city", &self.city);
        if let Some(c) = v.check(CountryCode::parse_field("country_code", &self.country_code)) {
            self.country_code = c.as_str().to_owned();
        }
        if !ADDRESS_TYPES.contains(&self.kind.as_str()) {
            v.push(FieldError::invalid_choice(
                "type",
                format!("must be one of {}", ADDRESS_TYPES.join(", ")),
            ));
        }
        v.finish(self)
    }
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

/// Metadata is flat string pairs; keys must be non-empty.
pub fn validate_metadata(entries: &BTreeMap<String, String>) -> Result<(), Vec<FieldError>> {
    let mut v = Violations::default();
    for key in entries.keys() {
        if key.trim().is_empty() || key.len() > 255 {
            v.push(FieldError::not_valid(
                "metadata",
                "keys must be 1 to 255 characters",
            ));
        }
    }
    v.finish(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn organisation_defaults_to_approved() {
        let o = OrganisationInput {
            name: " Red Cross ".into(),
            ..Default::default()
        };
        let valid = o.validate().unwrap();
        assert_eq!(valid.name, "Red Cross");
        assert_eq!(valid.approval_status, "approved");
    }

    #[test]
    fn organisation_errors_name_each_property() {
        let o = OrganisationInput {
            name: " ".into(),
            approval_status: Some("maybe".into()),
            merchant_category_code: Some("83A".into()),
            locale: Some("de-CH".into()),
        };
        let props: Vec<_> = o
            .validate()
            .unwrap_err()
            .into_iter()
            .map(|e| e.property)
            .collect();
        assert_eq!(
            props,
            [
                "name",
                "approval_status",
                "merchant_category_code",
                "locale"
            ]
        );
    }

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
