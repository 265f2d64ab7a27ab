//! What every room of payments shares: the store, the clock, the outbox, the providers and
//! how long to wait for it. It names no feature: what is a feature's own (payments' batches,
//! payouts' schedule) is built in lib.rs beside it and handed to that feature.

use std::sync::Arc;
use std::time::Duration;

use coffer_events::Outbox;
use coffer_model::clock::Clock;
use coffer_store::Store;

use crate::connector_registry::ConnectorRegistry;
use crate::shared::profile::KnownAccounts;

pub(crate) struct PaymentsState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub outbox: Outbox,
    /// The connector serving each profile (the test provider, or a connector account's).
    pub connectors: ConnectorRegistry,
    pub connector_timeout: Duration,
    pub settle_after: Duration,
    /// How long a payment may wait for its donor on a provider's challenge.
    pub donor_wait: Duration,
    /// Wakes the worker that sends reserved charges (workers/charges.rs).
    pub wake_sender: Arc<tokio::sync::Notify>,
    pub fingerprint_key: Vec<u8>,
    /// An account's organisation and payment method profiles, read on every payment.
    /// Neither changes once the replica has the account, so a short-lived copy saves a
    /// database round trip per payment (docs/payments.md).
    pub accounts: KnownAccounts,
}
