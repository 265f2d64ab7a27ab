use coffer_http::address_policy::AddressPolicy;
use coffer_http::config::{ConfigError, Validate};
use coffer_secrets::SecretsSettings;
use serde::{Deserialize, Serialize};

/// `coffer-reconciliation`'s own settings, beside the common ones of every service binary
/// (docs/configuration.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ReconciliationConfig {
    pub reconciliation: ReconciliationSection,
    /// The master keys SFTP credentials are sealed with (docs/decisions/secrets.md).
    pub secrets: SecretsSettings,
}

/// The largest file a setting may allow: roxmltree holds the whole document in memory, at
/// about eight times the file's size, so 512 MiB files already need 4 GiB.
pub const MAX_FILE_BYTES_CEILING: usize = 512 * 1024 * 1024;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ReconciliationSection {
    /// The largest bank file read, in bytes (1 MiB to 512 MiB; 128 MiB by default). Upload
    /// policies allow up to it; a larger file gets a failed report.
    pub max_file_bytes: usize,
    /// How often uploaded files are looked for, and SFTP sources checked for a due poll
    /// (500 to 600000 milliseconds).
    pub read_every_ms: u64,
    /// Subnets (comma-separated CIDRs) SFTP sources may reach beyond public addresses: for
    /// servers on the operator's own network, and tests. Empty by default.
    pub sftp_allow_subnets: String,
    /// The bucket sources' files are uploaded to; without an endpoint, upload
    /// credentials answer 503 and only the execute operation reads files.
    pub s3: S3Section,
}

impl Default for ReconciliationSection {
    fn default() -> Self {
        Self {
            max_file_bytes: coffer_camt::Limits::default().max_bytes,
            read_every_ms: 5_000,
            sftp_allow_subnets: String::new(),
            s3: S3Section::default(),
        }
    }
}

/// An S3-compatible store, addressed path-style (`<endpoint>/<bucket>/<key>`).
#[derive(Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct S3Section {
    /// Scheme, host and port only, such as `https://s3.eu-central-1.amazonaws.com`.
    pub endpoint: String,
    pub bucket: String,
    pub region: String,
    pub access_key: String,
    pub secret_key: String,
    /// With temporary credentials (STS) only.
    pub session_token: String,
}

impl Default for S3Section {
    fn default() -> Self {
        Self {
            endpoint: String::new(),
            bucket: String::new(),
            region: "us-east-1".into(),
            access_key: String::new(),
            secret_key: String::new(),
            session_token: String::new(),
        }
    }
}

// The keys stay out of logs and error messages.
impl std::fmt::Debug for S3Section {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Section")
            .field("endpoint", &self.endpoint)
            .field("bucket", &self.bucket)
            .field("region", &self.region)
            .finish_non_exhaustive()
    }
}

impl S3Section {
    /// The store these settings name, or `None` without an endpoint.
    pub fn store(&self) -> Result<Option<coffer_uploads::Store>, ConfigError> {
        if self.endpoint.trim().is_empty() {
            return Ok(None);
        }
        let endpoint = url::Url::parse(self.endpoint.trim()).map_err(|_| {
            ConfigError::invalid("reconciliation.s3.endpoint", "must be an http(s) URL")
        })?;
        let store = coffer_uploads::Store::new(
            endpoint,
            self.bucket.clone(),
            self.region.clone(),
            self.access_key.clone(),
            self.secret_key.clone(),
        )
        .map_err(|e| ConfigError::invalid("reconciliation.s3", e.to_string()))?;
        Ok(Some(if self.session_token.is_empty() {
            store
        } else {
            store.with_session_token(self.session_token.clone())
        }))
    }
}

impl ReconciliationSection {
    /// Where SFTP sources may connect: public addresses, and the allowed subnets.
    pub fn sftp_address_policy(&self) -> Result<AddressPolicy, ConfigError> {
        AddressPolicy::parse(&self.sftp_allow_subnets)
            .map_err(|e| ConfigError::invalid("reconciliation.sftp_allow_subnets", e))
    }
}

impl Validate for ReconciliationConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        let r = &self.reconciliation;
        if !(1024 * 1024..=MAX_FILE_BYTES_CEILING).contains(&r.max_file_bytes) {
            return Err(ConfigError::invalid(
                "reconciliation.max_file_bytes",
                "must be 1048576 (1 MiB) to 536870912 (512 MiB)",
            ));
        }
        if !(500..=600_000).contains(&r.read_every_ms) {
            return Err(ConfigError::invalid(
                "reconciliation.read_every_ms",
                "must be 500 to 600000 milliseconds",
            ));
        }
        r.s3.store()?;
        r.sftp_address_policy()?;
        self.secrets.keyring()?;
        Ok(())
    }

    /// SFTP credentials are sealed with the master keys, so serving needs them.
    fn validate_to_serve(&self) -> Result<(), ConfigError> {
        self.secrets.require()?;
        Ok(())
    }
}
