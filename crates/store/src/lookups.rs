//! Reads of one object by its key that arrive together, answered by one statement on the
//! readers' pool ([`Store::read`]): under load a batch costs one round trip, one statement
//! and one hand-off to a blocking thread instead of one of each per read (PostgreSQL spent
//! as much on starting each one-row statement as on running it), and under no load a read
//! is a batch of one, as before.
//!
//! A batch answers each key with what one moment of the database holds, as a read alone
//! would; a key asked twice in a batch is read once.

use std::collections::HashMap;

use crate::{Batches, Db, Store, StoreError};

/// Reads the objects of `keys` (distinct), each with its key; a key without an object is
/// left out.
pub type FindAll<V> = fn(&mut Db<'_>, &[String]) -> diesel::QueryResult<Vec<(String, V)>>;

/// Reads the object of one key: what a read is on SQLite.
pub type FindOne<V> = fn(&mut Db<'_>, &str) -> diesel::QueryResult<Option<V>>;

type Answer<V> = Result<Option<V>, StoreError>;

pub struct Lookups<V> {
    store: Store,
    /// Where each read goes alone ([`Lookups::alone_on_sqlite`]).
    alone: Option<FindOne<V>>,
    batches: Batches<String, Answer<V>>,
    /// How long a read waits for its batch: as long as it would for a connection alone.
    wait: std::time::Duration,
}

impl<V: Clone + Send + 'static> Lookups<V> {
    /// At most `at_once` batches are read at a time, each of at most `max` keys: keys that
    /// arrive while they are read wait and form the next batch. Built inside a runtime,
    /// the batches are gathered on it (one that outlives the HTTP workers', whose reads
    /// it answers).
    pub fn new(store: Store, (at_once, max): (usize, usize), find_all: FindAll<V>) -> Self {
        let wait = store.connect_timeout();
        let reading = store.clone();
        let batches = Batches::new(at_once, max, move |keys: Vec<String>| {
            let store = reading.clone();
            async move { answer(&store, keys, find_all).await }
        })
        // A read that timed out (503) is not read after all.
        .without_abandoned();
        let batches = match tokio::runtime::Handle::try_current() {
            Ok(runtime) => batches.on(runtime),
            Err(_) => batches,
        };
        Self {
            store,
            alone: None,
            batches,
            wait,
        }
    }

    /// On SQLite, each read alone with `find_one`, as a read was before batches: there a
    /// read has no round trip to share, and a statement with a list of keys is prepared
    /// afresh every time (one with one key stays prepared), so batches would only cost.
    #[must_use]
    pub fn alone_on_sqlite(mut self, find_one: FindOne<V>) -> Self {
        if self.store.backend() == crate::Backend::Sqlite {
            self.alone = Some(find_one);
        }
        self
    }

    /// The object of `key`, read with whatever other keys arrive meanwhile; 503's error
    /// (`Unavailable`) when its batch has not been read within the connection timeout.
    /// `lane` is whose read it is (payments gives the caller's API client): batches take
    /// the lanes' reads in turn, so one lane's flood of reads does not queue another's
    /// behind it. On SQLite, where each read goes alone, there are no lanes: a read waits
    /// for a blocking thread and a readers' connection like any other, bounded by the same
    /// timeout.
    pub async fn find(&self, lane: &str, key: String) -> Answer<V> {
        if let Some(find_one) = self.alone {
            return self.store.read(move |db| find_one(db, &key)).await;
        }
        let read = async {
            // A batch dropped unanswered (its runtime stopped under it) is read again once:
            // a read has no effect to repeat.
            match self.batches.submit_in(lane.to_owned(), key.clone()).await {
                Some(answer) => answer,
                None => self
                    .batches
                    .submit_in(lane.to_owned(), key)
                    .await
                    .unwrap_or(Err(StoreError::Cancelled)),
            }
        };
        tokio::time::timeout(self.wait, read)
            .await
            .unwrap_or_else(|_| {
                Err(StoreError::Unavailable(
                    "the read waited past the connection timeout".into(),
                ))
            })
    }
}

async fn answer<V: Clone + Send + 'static>(
    store: &Store,
    keys: Vec<String>,
    find_all: FindAll<V>,
) -> Vec<Answer<V>> {
    let mut distinct = keys.clone();
    distinct.sort_unstable();
    distinct.dedup();
    match store.read(move |db| find_all(db, &distinct)).await {
        Ok(found) => handed_out(&keys, found.into_iter().collect()),
        // Every read of the batch would have waited for a connection in vain alike.
        Err(StoreError::Pool(e)) => {
            let reason = e.to_string();
            keys.iter()
                .map(|_| Err(StoreError::Unavailable(reason.clone())))
                .collect()
        }
        Err(StoreError::Cancelled) => keys.iter().map(|_| Err(StoreError::Cancelled)).collect(),
        // One object that cannot be read (a damaged row) must fail its own read only, not
        // the others of its batch: each is read alone, one after another on one
        // connection, so a database failing every statement gets no more of them at once.
        Err(_) => one_by_one(store, keys, find_all).await,
    }
}

async fn one_by_one<V: Send + 'static>(
    store: &Store,
    keys: Vec<String>,
    find_all: FindAll<V>,
) -> Vec<Answer<V>> {
    let count = keys.len();
    let read = store
        .read(move |db| {
            Ok(keys
                .iter()
                .map(|key| {
                    Ok(find_all(db, std::slice::from_ref(key))?
                        .into_iter()
                        .next()
                        .map(|(_, v)| v))
                })
                .collect::<Vec<diesel::QueryResult<Option<V>>>>())
        })
        .await;
    match read {
        Ok(answers) => answers
            .into_iter()
            .map(|a| a.map_err(StoreError::from))
            .collect(),
        Err(e) => {
            let reason = e.to_string();
            (0..count)
                .map(|_| Err(StoreError::Unavailable(reason.clone())))
                .collect()
        }
    }
}

/// Each key's object, in the keys' order; one asked twice is copied for its earlier asker.
fn handed_out<V: Clone>(keys: &[String], mut found: HashMap<String, V>) -> Vec<Answer<V>> {
    let last: HashMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(at, key)| (key.as_str(), at))
        .collect();
    keys.iter()
        .enumerate()
        .map(|(at, key)| {
            Ok(if last.get(key.as_str()) == Some(&at) {
                found.remove(key)
            } else {
                found.get(key).cloned()
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_asker_gets_its_own_object_in_its_order_and_a_missing_one_none() {
        let keys: Vec<String> = ["b", "a", "b", "z"].map(String::from).to_vec();
        let found = HashMap::from([("a".to_string(), 1), ("b".to_string(), 2)]);
        let answers: Vec<Option<i32>> = handed_out(&keys, found)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(answers, vec![Some(2), Some(1), Some(2), None]);
    }
}
