use coffer_http::config::{ConfigError, Validate};
use coffer_secrets::SecretsSettings;
use serde::{Deserialize, Serialize};

/// `coffer-payments`' own settings, beside the common ones of every service binary.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PaymentsConfig {
    pub payments: PaymentsSection,
    /// The master keys stored secrets are sealed with (docs/decisions/secrets.md).
    pub secrets: SecretsSettings,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PaymentsSection {
    /// Where clients reach Coffer (the gateway); redirects to Coffer's pages start here.
    pub public_base_url: String,
    /// Secret key of card fingerprints, at least 32 characters; keep it stable, or the same
    /// card stops matching its earlier fingerprints.
    pub fingerprint_key: String,
}

impl Validate for PaymentsConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        let url = &self.payments.public_base_url;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ConfigError::invalid(
                "payments.public_base_url",
                "is required: an http(s) URL",
            ));
        }
        if self.payments.fingerprint_key.len() < 32 {
            return Err(ConfigError::invalid(
                "payments.fingerprint_key",
                "is required: at least 32 characters",
            ));
        }
        self.secrets.keyring()?;
        Ok(())
    }

    /// Payments keeps no sealed value yet, but provider credentials and webhook secrets
    /// will be; requiring the master key now means no deployment learns of it on the day
    /// the first one is stored.
    fn validate_to_serve(&self) -> Result<(), ConfigError> {
        self.secrets.require()?;
        Ok(())
    }
}
