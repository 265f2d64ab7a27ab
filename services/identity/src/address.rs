//! An address as operators and partners give it, which organisations, accounts (their
//! billing data) and onboardings all carry, and the not-blank check every input of the
//! directory shares. Below every feature, so that accounts/ and organisations/ need not
//! import attachments/ (which imports both) for it.

use coffer_model::country::CountryCode;
use coffer_model::validation::{FieldError, Violations};

pub const ADDRESS_TYPES: [&str; 3] = ["billing", "main", "postal"];

pub(crate) fn not_blank(v: &mut Violations, property: &str, value: &str) {
    if value.trim().is_empty() {
        v.push(FieldError::not_blank(property));
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
