//! Payment method profiles: for each account, which provider handles which method.

pub mod commands;
pub mod domain;
pub mod events;
pub mod routes;
pub mod store;

use crate::shared::method::PaymentMethod;

/// The name of an account's test profile for `method`, e.g. `card_test`.
pub fn test_profile_name(method: PaymentMethod) -> String {
    format!("{method}_test")
}
