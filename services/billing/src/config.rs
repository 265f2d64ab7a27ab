use coffer_http::config::{ConfigError, Validate};
use serde::{Deserialize, Serialize};

/// `coffer-billing`'s own settings, beside the common ones of every service binary.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BillingConfig {
    pub billing: BillingSection,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct BillingSection {
    /// How often the scheduler looks for due subscriptions and retries, in milliseconds.
    pub scheduler_interval_ms: u64,
    /// Scheduler passes run side by side on PostgreSQL, each on its own connection.
    pub scheduler_workers: usize,
}

impl Default for BillingSection {
    fn default() -> Self {
        Self {
            scheduler_interval_ms: 60_000,
            scheduler_workers: 3,
        }
    }
}

impl Validate for BillingConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if !(100..=3_600_000).contains(&self.billing.scheduler_interval_ms) {
            return Err(ConfigError::invalid(
                "billing.scheduler_interval_ms",
                "must be from 100 to 3600000",
            ));
        }
        if !(1..=16).contains(&self.billing.scheduler_workers) {
            return Err(ConfigError::invalid(
                "billing.scheduler_workers",
                "must be from 1 to 16",
            ));
        }
        Ok(())
    }
}
