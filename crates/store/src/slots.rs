//! A bound on how many of something each key may hold at once (a tenant's searches, a
//! client address's connections): a slot is taken or refused at once, and given back when
//! its holder drops it.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

type Held<K> = Arc<Mutex<HashMap<K, usize>>>;

/// Up to `bound` slots per key, shared by clones.
#[derive(Clone)]
pub struct Slots<K> {
    bound: usize,
    held: Held<K>,
}

/// One key's slot, given back when dropped.
pub struct Slot<K: Eq + Hash> {
    key: K,
    held: Held<K>,
}

impl<K: Eq + Hash> Drop for Slot<K> {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = held.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.key);
            }
        }
    }
}

impl<K: Eq + Hash + Clone> Slots<K> {
    /// At least one slot per key, whatever `bound` says.
    pub fn new(bound: usize) -> Self {
        Self {
            bound: bound.max(1),
            held: Arc::default(),
        }
    }

    pub fn bound(&self) -> usize {
        self.bound
    }

    /// A slot of `key`, or `None` when it holds all of its own.
    pub fn take(&self, key: &K) -> Option<Slot<K>> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let n = held.entry(key.clone()).or_insert(0);
        if *n >= self.bound {
            return None;
        }
        *n += 1;
        Some(Slot {
            key: key.clone(),
            held: Arc::clone(&self.held),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::Slots;

    #[test]
    fn a_key_holds_its_bound_and_gets_slots_back_as_they_are_dropped() {
        let slots = Slots::new(2);
        let (a, _b) = (slots.take(&"x").unwrap(), slots.take(&"x").unwrap());
        assert!(slots.take(&"x").is_none());
        assert!(slots.take(&"y").is_some(), "another key has its own");
        drop(a);
        assert!(slots.take(&"x").is_some());
    }
}
