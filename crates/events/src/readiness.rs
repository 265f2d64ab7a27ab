//! The readiness every event-publishing service shares: its database answers, and so does
//! the bus (without the bus, changes would pile up in the outbox unannounced).

use coffer_store::Store;

use crate::Bus;

/// `Ok` when both answer; otherwise what a readiness probe should report, with the cause
/// in the service's log.
pub async fn store_and_bus(service: &str, store: &Store, bus: &dyn Bus) -> Result<(), String> {
    store.ping().await.map_err(|e| {
        tracing::warn!(error = %e, service, "database not ready");
        "database unreachable".to_owned()
    })?;
    bus.ready().await.map_err(|e| {
        tracing::warn!(error = %e, service, "event bus not ready");
        "event bus unreachable".to_owned()
    })
}
