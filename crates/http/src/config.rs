//! Layered configuration: defaults in code, then an optional TOML file named by
//! `COFFER_CONFIG`, then `COFFER_<SECTION>__<KEY>` environment variables. A value that does
//! not parse or validate stops the binary with a message naming the setting.

use std::net::SocketAddr;

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::client_address::TrustedProxies;

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
    /// Worker threads; 0 means one per core, at most 8 (threads.rs).
    pub workers: usize,
    /// Largest request body accepted, in bytes.
    pub body_limit: usize,
    /// Addresses and CIDR ranges of the proxies (the gateway) whose `X-Forwarded-For` is
    /// believed; a list, or one string of comma-separated entries as an environment
    /// variable gives it. Empty: the peer of the connection is the client.
    #[serde(deserialize_with = "list_or_commas")]
    pub trusted_proxies: Vec<String>,
    /// Seconds a request body may take beyond what it earns at 64 KiB a second
    /// (body_deadline.rs); then it is answered 408 and its connection closed.
    pub body_timeout_seconds: u64,
    /// Connections one client address may hold open at once; those over it are closed as
    /// they are accepted. Trusted proxies are not counted.
    pub connections_per_address: usize,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            listen: "0.0.0.0:8080".into(),
            workers: 0,
            body_limit: crate::body::DEFAULT_LIMIT,
            trusted_proxies: Vec::new(),
            body_timeout_seconds: 15,
            connections_per_address: 128,
        }
    }
}

/// `["10.0.0.0/8", "127.0.0.1"]` in a file, `10.0.0.0/8,127.0.0.1` in the environment.
fn list_or_commas<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum ListOrCommas {
        List(Vec<String>),
        Commas(String),
    }
    Ok(match ListOrCommas::deserialize(d)? {
        ListOrCommas::List(list) => list,
        ListOrCommas::Commas(text) => text
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

impl HttpSettings {
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.listen
            .parse::<SocketAddr>()
            .map_err(|e| ConfigError::invalid("http.listen", format!("{:?}: {e}", self.listen)))?;
        if self.body_limit == 0 {
            return Err(ConfigError::invalid("http.body_limit", "must be above 0"));
        }
        if !(1..=3_600).contains(&self.body_timeout_seconds) {
            return Err(ConfigError::invalid(
                "http.body_timeout_seconds",
                "must be from 1 to 3600",
            ));
        }
        if !(1..=100_000).contains(&self.connections_per_address) {
            return Err(ConfigError::invalid(
                "http.connections_per_address",
                "must be from 1 to 100000",
            ));
        }
        self.proxies()?;
        Ok(())
    }

    pub fn client_limits(&self) -> ClientLimits {
        ClientLimits {
            body_timeout: std::time::Duration::from_secs(self.body_timeout_seconds),
            connections_per_address: self.connections_per_address,
        }
    }

    pub fn proxies(&self) -> Result<TrustedProxies, ConfigError> {
        TrustedProxies::parse(self.trusted_proxies.iter().map(String::as_str))
            .map_err(|e| ConfigError::invalid("http.trusted_proxies", e.to_string()))
    }

    /// The HTTP server's workers, which are also the runtime's (threads.rs).
    pub fn worker_count(&self) -> usize {
        crate::threads::workers(self.workers)
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
    /// A line per request answered (method, path, status) at INFO. Off by default: the
    /// gateway in front usually keeps an access log, and a line per request is a large
    /// share of what a busy service spends. Errors and warnings are logged either way,
    /// with the request's id.
    pub requests: bool,
}

impl Default for LogSettings {
    fn default() -> Self {
        Self {
            level: "info".into(),
            format: LogFormat::Json,
            requests: false,
        }
    }
}

impl LogSettings {
    /// A tracing filter, with one rule beyond tracing's own: a directive without `=` must
    /// be a level. tracing takes any other bare word for a target to log everything of, so
    /// a mistyped level (`wran`) would quietly log nothing else.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let directives = self.level.split(',').map(str::trim);
        for directive in directives.filter(|d| !d.is_empty() && !d.contains('=')) {
            if directive
                .parse::<tracing_subscriber::filter::LevelFilter>()
                .is_err()
            {
                return Err(ConfigError::invalid(
                    "log.level",
                    format!(
                        "{directive:?} is not a level (trace, debug, info, warn, error or off) \
                         nor a target=level directive"
                    ),
                ));
            }
        }
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

/// What one client may hold of the server: how long its body may take
/// (body_deadline.rs) and how many connections its address may keep open
/// (connections_per_address.rs).
#[derive(Clone, Copy, Debug)]
pub struct ClientLimits {
    pub body_timeout: std::time::Duration,
    pub connections_per_address: usize,
}

impl Default for ClientLimits {
    fn default() -> Self {
        let settings = HttpSettings::default();
        settings.client_limits()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn http(figment: Figment) -> Result<HttpSettings, ConfigError> {
        #[derive(Debug, Default, Serialize, Deserialize)]
        #[serde(default)]
        struct Only {
            http: HttpSettings,
        }
        impl Validate for Only {
            fn validate(&self) -> Result<(), ConfigError> {
                self.http.validate()
            }
        }
        extract::<Only>(&figment).map(|o| o.http)
    }

    #[test]
    fn trusted_proxies_come_as_a_list_or_as_commas() {
        let list = Figment::from(Toml::string(
            r#"http.trusted_proxies = ["10.0.0.0/8", "::1"]"#,
        ));
        assert_eq!(http(list).unwrap().trusted_proxies, ["10.0.0.0/8", "::1"]);
        let commas = Figment::from(Serialized::default(
            "http.trusted_proxies",
            "10.0.0.0/8, 127.0.0.1,",
        ));
        assert_eq!(
            http(commas).unwrap().trusted_proxies,
            ["10.0.0.0/8", "127.0.0.1"]
        );
        assert!(http(Figment::new()).unwrap().trusted_proxies.is_empty());
    }

    #[test]
    fn a_bad_trusted_proxy_names_the_setting() {
        let bad = Figment::from(Serialized::default("http.trusted_proxies", "10.0.0.0/8,gw"));
        let message = http(bad).unwrap_err().to_string();
        assert!(message.contains("http.trusted_proxies"), "{message}");
        assert!(message.contains("\"gw\""), "{message}");
    }

    #[test]
    fn a_log_level_must_be_a_level_or_name_its_target() {
        let level = |level: &str| LogSettings {
            level: level.into(),
            format: LogFormat::Text,
            requests: false,
        };
        for good in [
            "warn",
            "info,coffer_identity=debug",
            " OFF ",
            "warn,coffer_billing::scheduler=debug",
        ] {
            assert!(level(good).validate().is_ok(), "{good}");
        }
        for bad in ["loud", "wran", "info,coffer_identity", "info,x=loud"] {
            let message = level(bad).validate().unwrap_err().to_string();
            assert!(message.contains("log.level"), "{message}");
        }
    }
}
