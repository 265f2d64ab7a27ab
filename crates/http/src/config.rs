//! Layered configuration: defaults in code, then an optional TOML file named by
//! `COFFER_CONFIG`, then `COFFER_<SECTION>__<KEY>` environment variables. A value that does
//! not parse or validate stops the binary with a message naming the setting.

use std::net::SocketAddr;

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration: {0}")]
    Load(Box<figment::Error>),
    #[error("configuration file {path} (COFFER_CONFIG) does not exist")]
    MissingFile { path: String },
    #[error("setting `{setting}` is invalid: {message}")]
    Invalid {
        setting: &'static str,
        message: String,
    },
}

/// The `secrets` section checks itself; its errors name their setting like any other.
impl From<coffer_secrets::SettingsError> for ConfigError {
    fn from(e: coffer_secrets::SettingsError) -> Self {
        ConfigError::invalid(e.setting, e.message)
    }
}

impl ConfigError {
    pub fn invalid(setting: &'static str, message: impl Into<String>) -> Self {
        ConfigError::Invalid {
            setting,
            message: message.into(),
        }
    }
}

/// Checks that go beyond types: addresses that parse, URLs with a known scheme, ...
pub trait Validate {
    fn validate(&self) -> Result<(), ConfigError>;

    /// What `serve` needs beyond `migrate` (a master key, say), checked before either
    /// starts so that a missing one stops the binary like any other bad setting.
    fn validate_to_serve(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

/// The file and environment layers, without defaults.
pub fn sources() -> Result<Figment, ConfigError> {
    let mut figment = Figment::new();
    if let Ok(path) = std::env::var("COFFER_CONFIG") {
        if !std::path::Path::new(&path).is_file() {
            return Err(ConfigError::MissingFile { path });
        }
        figment = figment.merge(Toml::file(path));
    }
    // `COFFER_CONFIG` itself would otherwise land as a key named `config`.
    Ok(figment.merge(Env::prefixed("COFFER_").split("__").ignore(&["CONFIG"])))
}

/// Reads `T` from `sources` over `T`'s defaults, and validates it. Several types can be
/// read from the same sources, each seeing the keys it knows, so every error still names
/// its setting (serde's `flatten` would lose the key).
pub fn extract<T>(sources: &Figment) -> Result<T, ConfigError>
where
    T: Serialize + DeserializeOwned + Default + Validate,
{
    let config: T = Figment::from(Serialized::defaults(T::default()))
        .merge(sources.clone())
        .extract()
        .map_err(|e| ConfigError::Load(Box::new(e)))?;
    config.validate()?;
    Ok(config)
}

pub fn load<T>() -> Result<T, ConfigError>
where
    T: Serialize + DeserializeOwned + Default + Validate,
{
    extract(&sources()?)
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct HttpSettings {
    pub listen: String,
    /// Worker threads; 0 means one per core.
    pub workers: usize,
    /// Largest request body accepted, in bytes.
    pub body_limit: usize,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            listen: "0.0.0.0:8080".into(),
            workers: 0,
            body_limit: crate::body::DEFAULT_LIMIT,
        }
    }
}

impl HttpSettings {
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.listen
            .parse::<SocketAddr>()
            .map_err(|e| ConfigError::invalid("http.listen", format!("{:?}: {e}", self.listen)))?;
        if self.body_limit == 0 {
            return Err(ConfigError::invalid("http.body_limit", "must be above 0"));
        }
        Ok(())
    }

    pub fn worker_count(&self) -> usize {
        if self.workers == 0 {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        } else {
            self.workers
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Json,
    Text,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct LogSettings {
    /// A tracing filter such as `info` or `info,coffer_identity=debug`.
    pub level: String,
    pub format: LogFormat,
}

impl Default for LogSettings {
    fn default() -> Self {
        Self {
            level: "info".into(),
            format: LogFormat::Json,
        }
    }
}

impl LogSettings {
    pub fn validate(&self) -> Result<(), ConfigError> {
        tracing_subscriber::EnvFilter::try_new(&self.level)
            .map(|_| ())
            .map_err(|e| ConfigError::invalid("log.level", e.to_string()))
    }
}

/// How a service checks access tokens.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct AuthSettings {
    /// The `iss` every token must carry.
    pub issuer: String,
    /// Identity's JWKS. Unset in the identity service itself, which knows its own keys.
    pub jwks_url: Option<String>,
}

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            issuer: "coffer".into(),
            jwks_url: None,
        }
    }
}

impl AuthSettings {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.issuer.trim().is_empty() {
            return Err(ConfigError::invalid("auth.issuer", "must not be empty"));
        }
        match &self.jwks_url {
            Some(url) if !(url.starts_with("http://") || url.starts_with("https://")) => Err(
                ConfigError::invalid("auth.jwks_url", format!("{url:?} is not an http(s) URL")),
            ),
            _ => Ok(()),
        }
    }
}

/// Database URLs are checked by scheme here, before anything connects.
pub fn validate_database_url(setting: &'static str, url: &str) -> Result<(), ConfigError> {
    let known = ["postgres://", "postgresql://", "sqlite://"];
    if known.iter().any(|scheme| url.starts_with(scheme)) {
        Ok(())
    } else if url.is_empty() {
        Err(ConfigError::invalid(setting, "is required"))
    } else {
        Err(ConfigError::invalid(
            setting,
            "must start with postgres://, postgresql:// or sqlite://",
        ))
    }
}
