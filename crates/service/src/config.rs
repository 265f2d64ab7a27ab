use coffer_events::RelaySettings;
use coffer_events::kafka_bus::KafkaSettings;
use coffer_http::config::{
    AuthSettings, ConfigError, HttpSettings, LogSettings, Validate, validate_database_url,
};
use std::time::Duration;

use coffer_store::{PoolOptions, SearchOptions};
use serde::{Deserialize, Serialize};

/// Settings every service binary has (docs/configuration.md). A service's own settings
/// sit beside them, flattened into the same file and environment.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommonConfig {
    pub database_url: String,
    pub database: DatabaseSettings,
    pub http: HttpSettings,
    pub log: LogSettings,
    pub auth: AuthSettings,
    pub kafka: KafkaSettings,
    pub events: EventSettings,
    pub serve: ServeSettings,
}

/// The service's connections to its database, and its searches' (docs/configuration.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct DatabaseSettings {
    /// Connections of the service's pool, per process.
    pub pool_size: u32,
    /// Connections for reads alone (a payment's GET), beside the pool above, per process.
    pub read_pool_size: u32,
    /// How long a request or worker waits for a connection before it gives up (503).
    pub checkout_timeout_ms: u64,
    /// Connections searches use, apart from the pool above.
    pub search_pool_size: u32,
    /// Searches one organisation (or partner, or the platform) may run at once.
    pub searches_per_organisation: usize,
    /// How long one search may take before it is stopped.
    pub search_timeout_ms: u64,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        let options = PoolOptions::default();
        Self {
            pool_size: options.max_connections,
            read_pool_size: options.read_connections,
            checkout_timeout_ms: millis(options.connect_timeout),
            search_pool_size: options.searches.connections,
            searches_per_organisation: options.searches.per_tenant,
            search_timeout_ms: millis(options.searches.budget),
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl DatabaseSettings {
    pub fn pool_options(&self) -> PoolOptions {
        PoolOptions {
            max_connections: self.pool_size,
            read_connections: self.read_pool_size,
            connect_timeout: Duration::from_millis(self.checkout_timeout_ms),
            searches: SearchOptions {
                connections: self.search_pool_size,
                per_tenant: self.searches_per_organisation,
                budget: Duration::from_millis(self.search_timeout_ms),
            },
        }
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let bounds: [(&str, u64, u64, u64); 6] = [
            ("database.pool_size", self.pool_size.into(), 1, 1_000),
            (
                "database.read_pool_size",
                self.read_pool_size.into(),
                1,
                1_000,
            ),
            (
                "database.checkout_timeout_ms",
                self.checkout_timeout_ms,
                100,
                600_000,
            ),
            (
                "database.search_pool_size",
                self.search_pool_size.into(),
                1,
                1_000,
            ),
            (
                "database.searches_per_organisation",
                self.searches_per_organisation as u64,
                1,
                1_000,
            ),
            (
                "database.search_timeout_ms",
                self.search_timeout_ms,
                100,
                600_000,
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
        Ok(())
    }
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
        self.database.validate()?;
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
