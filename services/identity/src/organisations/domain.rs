//! Organisations as operators create them: the checks a new one must pass before it is
//! stored.

use coffer_model::locale::Locale;
use coffer_model::validation::{FieldError, Violations};

use crate::address::not_blank;
use crate::directory::ApprovalStatus;

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
    pub approval_status: ApprovalStatus,
    pub merchant_category_code: Option<String>,
    pub locale: Option<String>,
}

impl OrganisationInput {
    pub fn validate(self) -> Result<ValidOrganisation, Vec<FieldError>> {
        let mut v = Violations::default();
        not_blank(&mut v, "name", &self.name);
        let approval_status = match self.approval_status.as_deref() {
            None => Some(ApprovalStatus::Approved),
            Some(text) => ApprovalStatus::parse(text),
        };
        if approval_status.is_none() {
            let known: Vec<_> = ApprovalStatus::ALL.map(ApprovalStatus::as_str).into();
            v.push(FieldError::invalid_choice(
                "approval_status",
                format!("must be one of {}", known.join(", ")),
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
            // Never seen when unknown: `finish` refuses an input with a violation.
            approval_status: approval_status.unwrap_or(ApprovalStatus::Approved),
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
        assert_eq!(valid.approval_status, ApprovalStatus::Approved);
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
