//! What every route, command and worker of notifications shares, built once per process.

use std::sync::Arc;

use coffer_events::RelaySettings;
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;

#[derive(Clone)]
pub struct NotificationsSettings {
    pub event_prefix: String,
    pub relay: RelaySettings,
}

impl Default for NotificationsSettings {
    fn default() -> Self {
        Self {
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
        }
    }
}

pub(crate) struct NotificationsState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Seals endpoints' passwords and signing keys.
    pub secrets: Secrets,
}
