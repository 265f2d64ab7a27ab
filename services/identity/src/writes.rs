//! Identity's changes and the events that announce them, committed together: a change is
//! never visible without its event, nor an event without its change.

use std::sync::Arc;

use coffer_events::outbox::OutboxEvent;
use coffer_events::{Outbox, TraceContext, append};
use coffer_model::clock::Clock;
use coffer_store::{Db, Store, StoreError};
use diesel::QueryResult;
use diesel::result::Error as DieselError;
use uuid::Uuid;

/// What a command that changes identity's data needs.
#[derive(Clone)]
pub(crate) struct Writes {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Carries the events of every change; the relay of the running service publishes
    /// them, also when the change was made by another process.
    pub outbox: Outbox,
}

impl Writes {
    /// Makes `change` and appends the events it returns, in one transaction.
    pub async fn announcing<F>(&self, change: F) -> Result<(), StoreError>
    where
        F: FnOnce(&mut Db<'_>, &Outbox) -> QueryResult<Vec<OutboxEvent>> + Send + 'static,
    {
        let outbox = self.outbox.clone();
        // Operator changes start their own trace; it follows the events to every consumer.
        let trace = TraceContext::new_root();
        self.store
            .query(move |db| {
                db.write_tx(|tx| {
                    let events = change(tx, &outbox)?;
                    append(tx, &events, Some(&trace))
                })
            })
            .await?;
        self.outbox.committed();
        Ok(())
    }
}

/// A uuid read back from a row; a malformed one fails the transaction that reads it.
pub(crate) fn stored_uuid(raw: &str) -> QueryResult<Uuid> {
    raw.parse()
        .map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

/// An event's body; failing to encode it fails the transaction, so no change goes
/// unannounced.
pub(crate) fn payload<T: serde::Serialize>(value: &T) -> QueryResult<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| DieselError::SerializationError(Box::new(e)))
}
