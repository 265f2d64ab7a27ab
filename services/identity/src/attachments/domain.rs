//! Addresses and metadata, which organisations and accounts both carry: the checks a new
//! one must pass, and whose it is.

use std::collections::BTreeMap;

use coffer_model::country::CountryCode;
use coffer_model::validation::{FieldError, Violations};

use crate::organisations::domain::not_blank;

pub const ADDRESS_TYPES: [&str; 3] = ["billing", "main", "postal"];

/// An organisation or an account, as the owner of addresses and metadata (its stored uuid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    Organisation(String),
    Account(String),
}

/// Which kind of owner a path names, before it is known to exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerKind {
    Organisation,
    Account,
}

impl Owner {
    pub fn new(kind: OwnerKind, uuid: String) -> Self {
        match kind {
            OwnerKind::Organisation => Owner::Organisation(uuid),
            OwnerKind::Account => Owner::Account(uuid),
        }
    }

    pub fn uuid(&self) -> &str {
        match self {
            Owner::Organisation(u) | Owner::Account(u) => u,
        }
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
