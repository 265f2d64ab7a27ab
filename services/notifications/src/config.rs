use coffer_http::address_policy::AddressPolicy;
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
    pub notifications: NotificationsSection,
}

/// Bounds on the settings that drive work.
pub const RETENTION_DAYS: (u32, u32) = (1, 3650);
pub const IN_FLIGHT: (usize, usize) = (1, 10_000);
pub const ENDPOINTS: (usize, usize) = (1, 100_000);

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct NotificationsSection {
    /// Subnets (comma-separated CIDRs) deliveries may reach beyond public addresses: for
    /// receivers on the operator's own network, and tests. Empty by default.
    pub allow_subnets: String,
    /// A PEM file of roots deliveries trust beside the platform's. Empty: none.
    pub extra_root_certs: String,
    /// Days the delivery log keeps a try (1 to 3650).
    pub retention_days: u32,
    /// Tries in flight at once per process (1 to 10000), to any one endpoint, and to the
    /// endpoints of any one organisation: well below the process's, so that one
    /// organisation's endpoints that hang leave slots for everyone else's.
    pub max_in_flight: usize,
    pub max_in_flight_per_endpoint: usize,
    pub max_in_flight_per_organisation: usize,
    /// Webhook endpoints an organisation may have (1 to 100000): one more is refused.
    pub max_endpoints_per_organisation: usize,
}

impl Default for NotificationsSection {
    fn default() -> Self {
        Self {
            allow_subnets: String::new(),
            extra_root_certs: String::new(),
            retention_days: 30,
            max_in_flight: 256,
            max_in_flight_per_endpoint: 16,
            max_in_flight_per_organisation: 64,
            max_endpoints_per_organisation: 100,
        }
    }
}

impl NotificationsSection {
    pub fn address_policy(&self) -> Result<AddressPolicy, ConfigError> {
        AddressPolicy::parse(&self.allow_subnets)
            .map_err(|e| ConfigError::invalid("notifications.allow_subnets", e))
    }

    /// The extra roots' PEM, read and checked; none when no file is named.
    pub fn extra_roots(&self) -> Result<Option<Vec<u8>>, ConfigError> {
        if self.extra_root_certs.trim().is_empty() {
            return Ok(None);
        }
        let at = "notifications.extra_root_certs";
        let pem = std::fs::read(&self.extra_root_certs).map_err(|e| {
            ConfigError::invalid(at, format!("cannot read {}: {e}", self.extra_root_certs))
        })?;
        match reqwest::Certificate::from_pem_bundle(&pem) {
            Ok(certs) if !certs.is_empty() => Ok(Some(pem)),
            Ok(_) => Err(ConfigError::invalid(at, "holds no certificate")),
            Err(e) => Err(ConfigError::invalid(
                at,
                format!("is not PEM certificates: {e}"),
            )),
        }
    }

    fn check_bounds(&self) -> Result<(), ConfigError> {
        if !(RETENTION_DAYS.0..=RETENTION_DAYS.1).contains(&self.retention_days) {
            return Err(ConfigError::invalid(
                "notifications.retention_days",
                "must be 1 to 3650",
            ));
        }
        for (setting, value, (lo, hi)) in [
            ("notifications.max_in_flight", self.max_in_flight, IN_FLIGHT),
            (
                "notifications.max_in_flight_per_endpoint",
                self.max_in_flight_per_endpoint,
                IN_FLIGHT,
            ),
            (
                "notifications.max_in_flight_per_organisation",
                self.max_in_flight_per_organisation,
                IN_FLIGHT,
            ),
            (
                "notifications.max_endpoints_per_organisation",
                self.max_endpoints_per_organisation,
                ENDPOINTS,
            ),
        ] {
            if !(lo..=hi).contains(&value) {
                return Err(ConfigError::invalid(
                    setting,
                    format!("must be {lo} to {hi}"),
                ));
            }
        }
        Ok(())
    }
}

impl NotificationsConfig {
    pub fn address_policy(&self) -> Result<AddressPolicy, ConfigError> {
        self.notifications.address_policy()
    }
}

impl Validate for NotificationsConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        self.notifications.check_bounds()?;
        self.notifications.extra_roots()?;
        self.address_policy().map(drop)
    }
}
