//! What every route, command and worker of notifications shares, built once per process.

use std::sync::Arc;

use coffer_events::RelaySettings;
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;

use crate::deliveries::domain::address_policy::AddressPolicy;

#[derive(Clone)]
pub struct NotificationsSettings {
    pub event_prefix: String,
    pub relay: RelaySettings,
    /// Where deliveries may go: public addresses, and the subnets an operator allows.
    pub addresses: AddressPolicy,
}

impl Default for NotificationsSettings {
    fn default() -> Self {
        Self {
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            addresses: AddressPolicy::default(),
        }
    }
}

pub(crate) struct NotificationsState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Seals endpoints' passwords and signing keys.
    pub secrets: Secrets,
    pub addresses: AddressPolicy,
}
