//! What deliveries consume and emit. The `deliveries` consumer reads every domain's events
//! and, for each enabled subscription of the event's organisation that it passes, owes the
//! subscription's endpoint a delivery: a task written in the consumer's transaction, beside
//! the inbox record, so an event is never taken from the bus without its tasks. Nothing is
//! sent here; the sender (workers/sender.rs) does that after the commit.
//!
//! A batch of events costs three statements however many it holds: their subscriptions,
//! which of those subscriptions' endpoints are on, and the tasks.
//!
//! An endpoint turned off by Coffer is announced as
//! `notifications.webhook_endpoint.disabled` (commands/record.rs).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use coffer_events::{Event, Handler, HandlerError};
use coffer_model::clock::Clock;
use coffer_store::Db;
use tokio::sync::Notify;
use uuid::Uuid;

use super::domain::schedule::MAX_TRIES;
use super::domain::task::{Task, TaskState};
use crate::endpoints::store as endpoints;
use crate::subscriptions::domain::{Subscription, event_name, filter};
use crate::subscriptions::store as subscriptions;

/// The handler of notifications' `deliveries` consumer.
pub struct Fanout {
    pub clock: Arc<dyn Clock>,
    /// Wakes the sender; it also looks on its own, in case this ran before the commit.
    pub wake: Arc<Notify>,
}

impl Handler for Fanout {
    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        self.handle_many(db, std::slice::from_ref(event))
    }

    fn handle_many(&self, db: &mut Db<'_>, events: &[Event]) -> Result<(), HandlerError> {
        // Only events of an organisation, with a name of the catalogue's form, can be owed.
        let owed: Vec<(&Event, String, &str)> = events
            .iter()
            .filter_map(|e| {
                Some((
                    e,
                    e.organisation_uuid?.to_string(),
                    event_name::key_of(&e.name)?,
                ))
            })
            .collect();
        if owed.is_empty() {
            return Ok(());
        }
        let organisations: Vec<&str> = unique(owed.iter().map(|(_, o, _)| o.as_str()));
        let keys: Vec<&str> = unique(owed.iter().map(|(_, _, k)| *k));
        let mut by_pair: HashMap<(String, String), Vec<Subscription>> = HashMap::new();
        for s in subscriptions::matching_any(db, &organisations, &keys)? {
            by_pair
                .entry((s.organisation_uuid.clone(), s.event_key.clone()))
                .or_default()
                .push(s);
        }
        if by_pair.is_empty() {
            return Ok(());
        }
        // Each event and the endpoints its subscriptions name, in the events' order.
        let mut wanted_by_event: Vec<(&Event, &str, Vec<String>)> = Vec::new();
        for (event, organisation, key) in &owed {
            let Some(subscribed) = by_pair.get(&(organisation.clone(), (*key).to_owned())) else {
                continue;
            };
            let seen =
                serde_json::to_value(event).map_err(|e| HandlerError::Permanent(e.to_string()))?;
            let account = event.account_uuid.map(|a| a.to_string());
            let wanted: BTreeSet<String> = subscribed
                .iter()
                .filter(|s| s.account_uuid.is_none() || s.account_uuid == account)
                .filter(|s| passes(s.filter.as_ref(), &seen))
                .map(|s| s.action_configuration_uuid.clone())
                .collect();
            if !wanted.is_empty() {
                wanted_by_event.push((event, organisation, wanted.into_iter().collect()));
            }
        }
        let all: Vec<String> = unique(wanted_by_event.iter().flat_map(|(_, _, w)| w.iter()))
            .into_iter()
            .cloned()
            .collect();
        if all.is_empty() {
            return Ok(());
        }
        let enabled: HashSet<String> = endpoints::enabled_among(db, &all)?.into_iter().collect();
        let now = self.clock.unix_ms();
        let mut tasks: Vec<Task> = Vec::new();
        for (event, organisation, wanted) in wanted_by_event {
            let to: Vec<String> = wanted.into_iter().filter(|w| enabled.contains(w)).collect();
            if to.is_empty() {
                continue;
            }
            let body = event
                .to_json_string()
                .map_err(|e| HandlerError::Permanent(e.to_string()))?;
            let account = event.account_uuid.map(|a| a.to_string());
            tasks.extend(to.into_iter().map(|endpoint| Task {
                uuid: Uuid::new_v4().to_string(),
                event_uuid: event.id.to_string(),
                event_name: event.name.clone(),
                endpoint_uuid: endpoint,
                organisation_uuid: organisation.to_owned(),
                account_uuid: account.clone(),
                object_uuid: event.object_uuid.to_string(),
                body: body.clone(),
                state: TaskState::Pending,
                tries: 0,
                max_tries: MAX_TRIES,
                due_ms: now,
            }));
        }
        if tasks.is_empty() {
            return Ok(());
        }
        super::store::tasks::insert(db, &tasks, now)?;
        self.wake.notify_one();
        Ok(())
    }
}

/// The distinct items of `items`, in the order first seen.
fn unique<T: Eq + std::hash::Hash + Copy>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut seen = HashSet::new();
    items.filter(|i| seen.insert(*i)).collect()
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
