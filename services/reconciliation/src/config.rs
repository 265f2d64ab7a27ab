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

/// The largest file a setting may allow: reading one takes about six times its size
/// (docs/benchmarks.md), so 512 MiB files already need 3 GiB.
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
    /// Files one process reads at once (1 to 32; 2 by default), one at a time per
    /// organisation (files/turns.rs).
    pub readers: usize,
    /// The memory the files read at once may take together, in bytes (64 MiB to 64 GiB;
    /// 1 GiB by default). A file's share is estimated from its size; one whose share is
    /// larger than the whole budget gets a failed report saying so.
    pub memory_budget_bytes: usize,
    /// How long reading one file may take, in seconds (1 to 3600; 120 by default); a file
    /// that takes longer gets a failed report saying so.
    pub read_seconds: u64,
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
            readers: crate::state::DEFAULT_READERS,
            memory_budget_bytes: crate::state::DEFAULT_MEMORY_BUDGET,
            read_seconds: crate::state::DEFAULT_READ_FOR.as_secs(),
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

const MIB: usize = 1024 * 1024;

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
        if !(1..=32).contains(&r.readers) {
            return Err(ConfigError::invalid(
                "reconciliation.readers",
                "must be 1 to 32 files read at once",
            ));
        }
        if !(64 * MIB..=64 * 1024 * MIB).contains(&r.memory_budget_bytes) {
            return Err(ConfigError::invalid(
                "reconciliation.memory_budget_bytes",
                "must be 67108864 (64 MiB) to 68719476736 (64 GiB)",
            ));
        }
        let largest = crate::files::turns::share_of(r.max_file_bytes);
        if largest > r.memory_budget_bytes {
            return Err(ConfigError::invalid(
                "reconciliation.memory_budget_bytes",
                format!(
                    "must be at least {largest} bytes: reading a file of reconciliation.max_file_bytes ({}) takes that much",
                    r.max_file_bytes
                ),
            ));
        }
        if !(1..=3600).contains(&r.read_seconds) {
            return Err(ConfigError::invalid(
                "reconciliation.read_seconds",
                "must be 1 to 3600 seconds",
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
