//! Payment method profiles: for each account, which provider handles which method.

pub mod commands;
pub mod events;
pub mod routes;
pub mod store;

/// The methods every account can take, each first through Coffer's test provider.
pub const METHODS: [&str; 4] = ["card", "sepa_dd", "twint", "paypal"];

/// The name of an account's test profile for `method`, e.g. `card_test`.
pub fn test_profile_name(method: &str) -> String {
    format!("{method}_test")
}
