use coffer_events::kafka_bus::KafkaSettings;
use coffer_http::config::{
    AuthSettings, ConfigError, HttpSettings, LogSettings, Validate, validate_database_url,
};
use serde::{Deserialize, Serialize};

/// `coffer-identity`'s settings (see coffer_http::config for how they are layered).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
#[derive(Default)]
pub struct IdentityConfig {
    pub database_url: String,
    pub http: HttpSettings,
    pub log: LogSettings,
    pub auth: AuthSettings,
    pub token: TokenSettings,
    pub cache: CacheSettings,
    pub kafka: KafkaSettings,
    pub events: EventSettings,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct EventSettings {
    /// Prefix of event names and topics.
    pub prefix: String,
    /// Hours published outbox rows are kept.
    pub retention_hours: u64,
    /// Outbox rows the relay publishes per transaction.
    pub batch_size: i64,
}

impl Default for EventSettings {
    fn default() -> Self {
        Self {
            prefix: "coffer".into(),
            retention_hours: 24,
            batch_size: 500,
        }
    }
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

impl IdentityConfig {
    /// `serve` runs distributed: without a broker its events would have nowhere to go,
    /// and falling back to an in-process bus would strand them. `migrate` needs none.
    pub fn require_broker(&self) -> Result<(), ConfigError> {
        if self.kafka.brokers.trim().is_empty() {
            return Err(ConfigError::invalid(
                "kafka.brokers",
                "is required to serve (COFFER_KAFKA__BROKERS)",
            ));
        }
        Ok(())
    }
}

impl Validate for IdentityConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        validate_database_url("database_url", &self.database_url)?;
        self.http.validate()?;
        self.log.validate()?;
        self.auth.validate()?;
        if !(60..=86_400).contains(&self.token.lifetime_secs) {
            return Err(ConfigError::invalid(
                "token.lifetime_secs",
                "must be between 60 and 86400",
            ));
        }
        if self.events.prefix.is_empty()
            || !self
                .events
                .prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
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
        Ok(())
    }
}
