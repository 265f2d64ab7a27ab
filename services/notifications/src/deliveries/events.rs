//! What deliveries consume and emit. The `deliveries` consumer reads every domain's events
//! and, for each enabled subscription of the event's organisation that it passes, owes the
//! subscription's endpoint a delivery under the subscription's name for the event
//! (domain/named.rs): a task written in the consumer's transaction, beside the inbox record,
//! so an event is never taken from the bus without its tasks. Nothing is sent here; the
//! sender (workers/sender.rs) does that after the commit.
//!
//! A batch of events costs three statements however many it holds: their subscriptions,
//! which of those subscriptions' endpoints are on, and the tasks.
//!
//! An endpoint turned off by Coffer is announced as
//! `notifications.webhook_endpoint.disabled` (commands/record.rs).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use coffer_events::{Event, Handler, HandlerError};
use coffer_model::clock::Clock;
use coffer_store::Db;
use tokio::sync::Notify;
use uuid::Uuid;

use super::domain::named;
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
        // Each event, and each endpoint its subscriptions name with the name its delivery
        // carries, in the events' order.
        let mut wanted_by_event: Vec<(&Event, &str, BTreeMap<&str, &Subscription>)> = Vec::new();
        for (event, organisation, key) in &owed {
            let Some(subscribed) = by_pair.get(&(organisation.clone(), (*key).to_owned())) else {
                continue;
            };
            let seen =
                serde_json::to_value(event).map_err(|e| HandlerError::Permanent(e.to_string()))?;
            // What each subscription's filter reads: the event under the subscription's name.
            let mut seen_as: HashMap<&str, serde_json::Value> = HashMap::new();
            let account = event.account_uuid.map(|a| a.to_string());
            let mut wanted: BTreeMap<&str, &Subscription> = BTreeMap::new();
            for s in subscribed {
                if s.account_uuid.is_some() && s.account_uuid != account {
                    continue;
                }
                if let Some(raw) = s.filter.as_ref() {
                    let view = seen_as
                        .entry(s.event_name.as_str())
                        .or_insert_with(|| named::seen_as(&seen, &s.event_name));
                    if !passes(raw, view) {
                        continue;
                    }
                }
                let endpoint = s.action_configuration_uuid.as_str();
                if wanted
                    .get(endpoint)
                    .is_none_or(|kept| named::names_first(s, kept))
                {
                    wanted.insert(endpoint, s);
                }
            }
            if !wanted.is_empty() {
                wanted_by_event.push((event, organisation, wanted));
            }
        }
        let all: Vec<String> = unique(wanted_by_event.iter().flat_map(|(_, _, w)| w.keys()))
            .into_iter()
            .map(|endpoint| (*endpoint).to_owned())
            .collect();
        if all.is_empty() {
            return Ok(());
        }
        let enabled: HashSet<String> = endpoints::enabled_among(db, &all)?.into_iter().collect();
        let now = self.clock.unix_ms();
        let mut tasks: Vec<Task> = Vec::new();
        for (event, organisation, wanted) in wanted_by_event {
            // One body per name the event goes out under.
            let mut bodies: HashMap<&str, String> = HashMap::new();
            let account = event.account_uuid.map(|a| a.to_string());
            for (endpoint, s) in wanted {
                if !enabled.contains(endpoint) {
                    continue;
                }
                let name = s.event_name.as_str();
                let body = match bodies.get(name) {
                    Some(body) => body.clone(),
                    None => {
                        let body = named::body(event, name)
                            .map_err(|e| HandlerError::Permanent(e.to_string()))?;
                        bodies.insert(name, body.clone());
                        body
                    }
                };
                tasks.push(Task {
                    uuid: Uuid::new_v4().to_string(),
                    event_uuid: event.id.to_string(),
                    // The event's own name, whatever the body says: it tells notifications'
                    // own events from others (Standing::is_own_event).
                    event_name: event.name.clone(),
                    endpoint_uuid: endpoint.to_owned(),
                    organisation_uuid: organisation.to_owned(),
                    account_uuid: account.clone(),
                    object_uuid: event.object_uuid.to_string(),
                    body,
                    state: TaskState::Pending,
                    tries: 0,
                    max_tries: MAX_TRIES,
                    due_ms: now,
                });
            }
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
fn passes(raw: &serde_json::Value, event: &serde_json::Value) -> bool {
    match filter::read(raw) {
        Ok(None) => true,
        Ok(Some(f)) => f.passes(event),
        Err(_) => false,
    }
}
