use coffer_http::config::{ConfigError, Validate};
use coffer_secrets::SecretsSettings;
use serde::{Deserialize, Serialize};

/// `coffer-notifications`' own settings, beside the common ones of every service binary.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NotificationsConfig {
    /// The master keys endpoints' passwords and signing keys are sealed with
    /// (docs/decisions/secrets.md).
    pub secrets: SecretsSettings,
}

impl Validate for NotificationsConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}
