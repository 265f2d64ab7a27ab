use coffer_http::config::{ConfigError, Validate};
use coffer_secrets::SecretsSettings;
use serde::{Deserialize, Serialize};

use crate::sso::SsoSettings;
use crate::tokens::ThrottleSettings;

/// `coffer-identity`'s own settings, beside the common ones of every service binary (see
/// coffer_http::config for how they are layered).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct IdentityConfig {
    pub token: TokenSettings,
    pub cache: CacheSettings,
    /// When failed client authentications at the token endpoint are answered 429.
    pub token_failures: ThrottleSettings,
    /// The master keys signing keys are sealed with (docs/decisions/secrets.md).
    pub secrets: SecretsSettings,
    /// Partners' single sign-on (docs/partners.md).
    pub sso: SsoSettings,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct CacheSettings {
    /// How long, in milliseconds, a read of a client or an organisation may be served
    /// from memory; 0 turns the cache off.
    pub read_ttl_ms: u64,
}

impl Default for CacheSettings {
    fn default() -> Self {
        Self { read_ttl_ms: 2000 }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct TokenSettings {
    /// Access token lifetime in seconds (`expires_in`).
    pub lifetime_secs: i64,
    /// How often the signing keys are reread, so a rotation elsewhere reaches this replica.
    pub key_reload_secs: u64,
}

impl Default for TokenSettings {
    fn default() -> Self {
        Self {
            lifetime_secs: 3600,
            key_reload_secs: 60,
        }
    }
}

impl Validate for IdentityConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if !(60..=86_400).contains(&self.token.lifetime_secs) {
            return Err(ConfigError::invalid(
                "token.lifetime_secs",
                "must be between 60 and 86400",
            ));
        }
        if self.cache.read_ttl_ms > 60_000 {
            return Err(ConfigError::invalid(
                "cache.read_ttl_ms",
                "must be at most 60000",
            ));
        }
        if self.token.key_reload_secs == 0 {
            return Err(ConfigError::invalid(
                "token.key_reload_secs",
                "must be above 0",
            ));
        }
        validate_token_failures(&self.token_failures)?;
        validate_sso(&self.sso)?;
        self.secrets.keyring()?;
        Ok(())
    }

    /// Identity stores its signing keys sealed: without a master key it cannot read them.
    fn validate_to_serve(&self) -> Result<(), ConfigError> {
        self.secrets.require()?;
        // Without it the issuer would come from each request's Host header, which a client
        // chooses (docs/partners.md).
        if self.sso.issuer.is_empty() {
            return Err(ConfigError::invalid(
                "sso.issuer",
                "is required to serve: identity's public address as partners reach it",
            ));
        }
        Ok(())
    }
}

fn validate_token_failures(t: &ThrottleSettings) -> Result<(), ConfigError> {
    if !(1..=86_400).contains(&t.window_secs) {
        return Err(ConfigError::invalid(
            "token_failures.window_secs",
            "must be between 1 and 86400",
        ));
    }
    if t.per_client == 0 {
        return Err(ConfigError::invalid(
            "token_failures.per_client",
            "must be above 0",
        ));
    }
    if t.per_address == 0 {
        return Err(ConfigError::invalid(
            "token_failures.per_address",
            "must be above 0",
        ));
    }
    if !(1_000..=10_000_000).contains(&t.tracked) {
        return Err(ConfigError::invalid(
            "token_failures.tracked",
            "must be between 1000 and 10000000",
        ));
    }
    Ok(())
}

fn validate_sso(s: &SsoSettings) -> Result<(), ConfigError> {
    if !s.issuer.is_empty() {
        let ok = url::Url::parse(&s.issuer).is_ok_and(|u| {
            matches!(u.scheme(), "https" | "http") && u.query().is_none() && u.fragment().is_none()
        });
        if !ok || s.issuer.ends_with('/') {
            return Err(ConfigError::invalid(
                "sso.issuer",
                "must be an http(s) URL without a query, fragment or trailing slash",
            ));
        }
    }
    let bounds = [
        ("sso.code_ttl_secs", s.code_ttl_secs, 10, 600),
        (
            "sso.id_token_lifetime_secs",
            s.id_token_lifetime_secs,
            60,
            86_400,
        ),
        ("sso.form_ttl_secs", s.form_ttl_secs, 60, 86_400),
        (
            "sso.sign_in_failures.max_delay_secs",
            s.sign_in_failures.max_delay_secs,
            1,
            86_400,
        ),
    ];
    for (name, value, low, high) in bounds {
        if !(low..=high).contains(&value) {
            return Err(ConfigError::invalid(
                name,
                format!("must be between {low} and {high}"),
            ));
        }
    }
    if !(1_000..=10_000_000).contains(&s.sign_in_failures.tracked) {
        return Err(ConfigError::invalid(
            "sso.sign_in_failures.tracked",
            "must be between 1000 and 10000000",
        ));
    }
    Ok(())
}
