use std::hash::Hash;
use std::time::{Duration, Instant};

/// A bounded read-through cache whose entries expire after a fixed time.
///
/// For data that is read far more often than it changes, where every replica (and the
/// admin CLI) may write: instead of invalidation across processes, an entry simply lives
/// no longer than `ttl`, which bounds how stale a read can be.
pub struct TtlCache<K, V> {
    entries: quick_cache::sync::Cache<K, (Instant, V)>,
    ttl: Duration,
}

impl<K: Eq + Hash + Clone, V: Clone> TtlCache<K, V> {
    pub fn new(capacity: usize, ttl: Duration) -> Self {
        Self {
            entries: quick_cache::sync::Cache::new(capacity),
            ttl,
        }
    }

    pub fn get(&self, key: &K) -> Option<V> {
        match self.entries.get(key) {
            Some((until, value)) if until > Instant::now() => Some(value),
            Some(_) => {
                self.entries.remove(key);
                None
            }
            None => None,
        }
    }

    pub fn insert(&self, key: K, value: V) {
        self.entries.insert(key, (Instant::now() + self.ttl, value));
    }

    pub fn remove(&self, key: &K) {
        self.entries.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire() {
        let cache = TtlCache::new(10, Duration::from_millis(20));
        cache.insert("a", 1);
        assert_eq!(cache.get(&"a"), Some(1));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(cache.get(&"a"), None);
    }

    #[test]
    fn capacity_is_bounded() {
        let cache = TtlCache::new(8, Duration::from_secs(60));
        for i in 0..1000 {
            cache.insert(i, i);
        }
        assert!((0..1000).filter(|i| cache.get(i).is_some()).count() <= 16);
    }
}
