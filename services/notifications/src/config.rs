use coffer_http::config::{ConfigError, Validate};
use coffer_secrets::SecretsSettings;
use serde::{Deserialize, Serialize};

use crate::deliveries::domain::address_policy::AddressPolicy;

/// `coffer-notifications`' own settings, beside the common ones of every service binary.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NotificationsConfig {
    /// The master keys endpoints' passwords and signing keys are sealed with
    /// (docs/decisions/secrets.md).
    pub secrets: SecretsSettings,
    pub notifications: NotificationsSection,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NotificationsSection {
    /// Subnets (comma-separated CIDRs) deliveries may reach beyond public addresses: for
    /// receivers on the operator's own network, and tests. Empty by default.
    pub allow_subnets: String,
}

impl NotificationsConfig {
    pub fn address_policy(&self) -> Result<AddressPolicy, ConfigError> {
        AddressPolicy::parse(&self.notifications.allow_subnets)
            .map_err(|e| ConfigError::invalid("notifications.allow_subnets", e))
    }
}

impl Validate for NotificationsConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        self.address_policy().map(drop)
    }
}
