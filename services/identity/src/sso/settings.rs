use serde::{Deserialize, Serialize};

use super::throttle::SignInThrottleSettings;

/// The `sso.*` settings (docs/configuration.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SsoSettings {
    /// The issuer of ID tokens and the base of the discovery document's URLs: identity's
    /// public address as partners reach it, without a trailing slash. Empty: taken from
    /// each request's scheme and host, which suits `coffer dev` and tests only.
    pub issuer: String,
    /// How long an authorization code may wait to be exchanged.
    pub code_ttl_secs: i64,
    pub id_token_lifetime_secs: i64,
    /// How long a login page may stay open before its form must be sent again.
    pub form_ttl_secs: i64,
    pub sign_in_failures: SignInThrottleSettings,
}

impl Default for SsoSettings {
    fn default() -> Self {
        Self {
            issuer: String::new(),
            code_ttl_secs: 60,
            id_token_lifetime_secs: 300,
            form_ttl_secs: 1800,
            sign_in_failures: SignInThrottleSettings::default(),
        }
    }
}
