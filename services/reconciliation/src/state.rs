//! What every route, command and worker of reconciliation shares, built once per process.

use std::sync::Arc;
use std::time::Duration;

use coffer_events::{Outbox, RelaySettings};
use coffer_http::address_policy::AddressPolicy;
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;

use crate::object_store::ObjectStore;

/// `reconciliation.readers` by default (how files take turns: `files/turns.rs`).
pub const DEFAULT_READERS: usize = 2;
/// `reconciliation.memory_budget_bytes` by default.
pub const DEFAULT_MEMORY_BUDGET: usize = 1024 * 1024 * 1024;
/// `reconciliation.read_seconds` by default.
pub const DEFAULT_READ_FOR: Duration = Duration::from_secs(120);

#[derive(Clone)]
pub struct ReconciliationSettings {
    pub event_prefix: String,
    pub relay: RelaySettings,
    /// The largest bank file read, in bytes (`reconciliation.max_file_bytes`).
    pub max_file_bytes: usize,
    /// How often waiting files are looked for, and SFTP sources checked for a due poll.
    pub read_every: Duration,
    /// Files read at once (`reconciliation.readers`).
    pub readers: usize,
    /// The memory files read at once share (`reconciliation.memory_budget_bytes`).
    pub memory_budget_bytes: usize,
    /// How long reading one file may take (`reconciliation.read_seconds`).
    pub read_for: Duration,
    /// The master keys SFTP credentials are sealed with; none keeps SFTP sources out.
    pub secrets: Option<Secrets>,
    /// Where uploaded files land; none answers upload credentials with 503.
    pub objects: Option<ObjectStore>,
    /// Which SFTP servers may be reached: public addresses, and the subnets an operator
    /// allows (`reconciliation.sftp_allow_subnets`).
    pub sftp_addresses: AddressPolicy,
}

impl Default for ReconciliationSettings {
    fn default() -> Self {
        Self {
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            max_file_bytes: coffer_camt::Limits::default().max_bytes,
            read_every: Duration::from_secs(2),
            readers: DEFAULT_READERS,
            memory_budget_bytes: DEFAULT_MEMORY_BUDGET,
            read_for: DEFAULT_READ_FOR,
            secrets: None,
            objects: None,
            sftp_addresses: AddressPolicy::default(),
        }
    }
}

pub struct ReconciliationState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub outbox: Outbox,
    pub secrets: Option<Secrets>,
    pub objects: Option<ObjectStore>,
    /// How often the uploads worker looks for new files, and the SFTP worker for sources
    /// due a poll.
    pub read_every: Duration,
    pub sftp_addresses: AddressPolicy,
    /// Bounds on reading one file (its size is `max_file_bytes`).
    pub limits: coffer_camt::Limits,
}
