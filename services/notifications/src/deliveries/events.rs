//! What deliveries consume and emit. The `deliveries` consumer reads every domain's events
//! and, for each enabled subscription of the event's organisation that it passes, owes the
//! subscription's endpoint a delivery: a task written in the consumer's transaction, beside
//! the inbox record, so an event is never taken from the bus without its tasks. Nothing is
//! sent here; the sender (workers/sender.rs) does that after the commit.
//!
//! An endpoint turned off by Coffer is announced as
//! `notifications.webhook_endpoint.disabled` (commands/record.rs).

use std::collections::BTreeSet;
use std::sync::Arc;

use coffer_events::{Event, Handler, HandlerError};
use coffer_model::clock::Clock;
use coffer_store::Db;
use tokio::sync::Notify;
use uuid::Uuid;

use super::domain::schedule::MAX_TRIES;
use super::domain::task::{Task, TaskState};
use crate::endpoints::store as endpoints;
use crate::subscriptions::domain::{event_name, filter};
use crate::subscriptions::store as subscriptions;

/// The handler of notifications' `deliveries` consumer.
pub struct Fanout {
    pub clock: Arc<dyn Clock>,
    /// Wakes the sender; it also looks on its own, in case this ran before the commit.
    pub wake: Arc<Notify>,
}

impl Handler for Fanout {
    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let (Some(organisation), Some(key)) =
            (event.organisation_uuid, event_name::key_of(&event.name))
        else {
            return Ok(());
        };
        let subscribed = subscriptions::matching(db, &organisation.to_string(), key)?;
        if subscribed.is_empty() {
            return Ok(());
        }
        let seen =
            serde_json::to_value(event).map_err(|e| HandlerError::Permanent(e.to_string()))?;
        let account = event.account_uuid.map(|a| a.to_string());
        let wanted: BTreeSet<String> = subscribed
            .into_iter()
            .filter(|s| s.account_uuid.is_none() || s.account_uuid == account)
            .filter(|s| passes(s.filter.as_ref(), &seen))
            .map(|s| s.action_configuration_uuid)
            .collect();
        let wanted: Vec<String> = wanted.into_iter().collect();
        let enabled = endpoints::enabled_among(db, &wanted)?;
        if enabled.is_empty() {
            return Ok(());
        }
        let body = event
            .to_json_string()
            .map_err(|e| HandlerError::Permanent(e.to_string()))?;
        let now = self.clock.unix_ms();
        let tasks: Vec<Task> = enabled
            .into_iter()
            .map(|endpoint| Task {
                uuid: Uuid::new_v4().to_string(),
                event_uuid: event.id.to_string(),
                event_name: event.name.clone(),
                endpoint_uuid: endpoint,
                organisation_uuid: organisation.to_string(),
                account_uuid: account.clone(),
                object_uuid: event.object_uuid.to_string(),
                body: body.clone(),
                state: TaskState::Pending,
                tries: 0,
                max_tries: MAX_TRIES,
                due_ms: now,
            })
            .collect();
        super::store::tasks::insert(db, &tasks, now)?;
        self.wake.notify_one();
        Ok(())
    }
}

/// Whether the event passes a subscription's filter; a filter that no longer reads (it
/// was checked when it was saved) lets nothing through rather than everything.
fn passes(raw: Option<&serde_json::Value>, event: &serde_json::Value) -> bool {
    match raw.map(filter::read) {
        None => true,
        Some(Ok(None)) => true,
        Some(Ok(Some(f))) => f.passes(event),
        Some(Err(_)) => false,
    }
}
