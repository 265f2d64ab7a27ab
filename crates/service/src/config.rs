use coffer_events::RelaySettings;
use coffer_events::kafka_bus::KafkaSettings;
use coffer_http::config::{
    AuthSettings, ConfigError, HttpSettings, LogSettings, Validate, validate_database_url,
};
use serde::{Deserialize, Serialize};

/// Settings every service binary has (docs/configuration.md). A service's own settings
/// sit beside them, flattened into the same file and environment.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommonConfig {
    pub database_url: String,
    pub http: HttpSettings,
    pub log: LogSettings,
    pub auth: AuthSettings,
    pub kafka: KafkaSettings,
    pub events: EventSettings,
    pub serve: ServeSettings,
}

/// What `serve` does about migrations.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ServeSettings {
    /// Apply pending migrations before serving. Where a separate step migrates (the
    /// migration Jobs of k8s/), false: `serve` then only waits for that step.
    pub migrate: bool,
    /// How long `serve` waits for another step's migrations before it gives up.
    pub migrations_wait_seconds: u64,
}

impl Default for ServeSettings {
    fn default() -> Self {
        Self {
            migrate: true,
            migrations_wait_seconds: 600,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct EventSettings {
    /// Prefix of event names and topics.
    pub prefix: String,
    /// Outbox rows the relay publishes per transaction.
    pub batch_size: i64,
}

impl Default for EventSettings {
    fn default() -> Self {
        Self {
            prefix: "coffer".into(),
            batch_size: 500,
        }
    }
}

impl Validate for CommonConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        validate_database_url("database_url", &self.database_url)?;
        self.http.validate()?;
        self.log.validate()?;
        self.auth.validate()?;
        let prefix_ok = !self.events.prefix.is_empty()
            && self
                .events
                .prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !prefix_ok {
            return Err(ConfigError::invalid(
                "events.prefix",
                "must be letters, digits, - or _",
            ));
        }
        if !(1..=10_000).contains(&self.events.batch_size) {
            return Err(ConfigError::invalid(
                "events.batch_size",
                "must be between 1 and 10000",
            ));
        }
        if !(1..=86_400).contains(&self.serve.migrations_wait_seconds) {
            return Err(ConfigError::invalid(
                "serve.migrations_wait_seconds",
                "must be between 1 and 86400",
            ));
        }
        Ok(())
    }
}

impl CommonConfig {
    /// `serve` runs distributed: without a broker its events would have nowhere to go, and
    /// falling back to an in-process bus would strand them. `migrate` needs none.
    pub fn require_broker(&self) -> Result<(), ConfigError> {
        if self.kafka.brokers.trim().is_empty() {
            return Err(ConfigError::invalid(
                "kafka.brokers",
                "is required to serve (COFFER_KAFKA__BROKERS)",
            ));
        }
        Ok(())
    }

    pub fn relay_settings(&self) -> RelaySettings {
        RelaySettings {
            batch_size: self.events.batch_size,
            ..RelaySettings::default()
        }
    }
}
