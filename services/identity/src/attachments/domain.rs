//! Addresses and metadata, which organisations and accounts both carry: whose they are,
//! and the checks new metadata must pass (an address's own are crate::address).

use std::collections::BTreeMap;

use coffer_model::validation::{FieldError, Violations};

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
