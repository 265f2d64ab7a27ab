//! What every route, command and worker of notifications shares, built once per process.

use std::sync::Arc;

use coffer_events::{Outbox, RelaySettings};
use coffer_http::address_policy::AddressPolicy;
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;
use tokio::sync::Notify;

use crate::config::NotificationsSection;
use crate::deliveries::metrics::DeliveryMetrics;

#[derive(Clone)]
pub struct NotificationsSettings {
    pub event_prefix: String,
    pub relay: RelaySettings,
    /// Where deliveries may go: public addresses, and the subnets an operator allows.
    pub addresses: AddressPolicy,
    /// Roots (PEM) deliveries trust beside the platform's, for receivers with a private CA.
    pub extra_roots: Option<Vec<u8>>,
    /// How long the delivery log keeps a try, in days.
    pub retention_days: u32,
    /// Tries in flight at once in this process: in all, to any one endpoint, and to the
    /// endpoints of any one organisation.
    pub max_in_flight: usize,
    pub max_in_flight_per_endpoint: usize,
    pub max_in_flight_per_organisation: usize,
    /// Webhook endpoints an organisation may have.
    pub max_endpoints_per_organisation: usize,
}

impl Default for NotificationsSettings {
    /// The configuration's defaults (config.rs).
    fn default() -> Self {
        let section = NotificationsSection::default();
        Self {
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            addresses: AddressPolicy::default(),
            extra_roots: None,
            retention_days: section.retention_days,
            max_in_flight: section.max_in_flight,
            max_in_flight_per_endpoint: section.max_in_flight_per_endpoint,
            max_in_flight_per_organisation: section.max_in_flight_per_organisation,
            max_endpoints_per_organisation: section.max_endpoints_per_organisation,
        }
    }
}

pub(crate) struct NotificationsState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Seals endpoints' passwords and signing keys.
    pub secrets: Secrets,
    pub addresses: AddressPolicy,
    /// Where notifications' own events are written (an endpoint turned off).
    pub outbox: Outbox,
    /// The client every try goes out through (deliveries/connect.rs).
    pub client: reqwest::Client,
    /// Wakes the sender when tasks are made or a redelivery is asked for.
    pub wake: Arc<Notify>,
    pub metrics: DeliveryMetrics,
    pub retention_days: u32,
    pub max_in_flight: usize,
    pub max_in_flight_per_endpoint: usize,
    pub max_in_flight_per_organisation: usize,
    pub max_endpoints_per_organisation: usize,
}
