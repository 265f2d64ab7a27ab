//! Organisations as operators create them: the checks a new one must pass before it is
//! stored.

use coffer_model::locale::Locale;
use coffer_model::validation::{FieldError, Violations};

use crate::address::not_blank;

/// Approval states Coffer knows. SPEC.md shows two and says the set is larger; Coffer
/// adds `rejected` (docs/decisions/identity.md).
pub const APPROVAL_STATUSES: [&str; 3] = ["approved", "approval_pending", "rejected"];

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
}
