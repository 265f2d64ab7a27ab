//! Files take turns to be read, so that one organisation's files never hold up another's
//! and all of them together fit the process's memory:
//!
//! - each organisation reads one file at a time (its other files wait for it, not for
//!   anyone else's);
//! - at most `reconciliation.readers` files are read at once in the process, given out in
//!   the order asked for, so with one file per organisation waiting they go round the
//!   organisations in turn;
//! - every file read takes its share of one memory budget
//!   (`reconciliation.memory_budget_bytes`) for as long as it is read; a file whose share
//!   is larger than the whole budget is refused at once, never read.
//!
//! A file's share is estimated from its size alone, before it is fetched: [`share_of`].
//! The parser then checks, before it builds anything, that its own estimate from what the
//! file holds fits that share (coffer_camt's `max_memory`), so a file denser than a bank
//! statement cannot take more than it was given.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use coffer_camt::Deadline;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

const MIB: usize = 1024 * 1024;
/// Reading and reporting a statement took at most this many times its size at the peak
/// (docs/benchmarks.md, "Memory while reading a file").
const BYTES_PER_FILE_BYTE: usize = 6;
/// What any file takes besides: its report, its events, the process's buffers.
const FIXED: usize = 16 * MIB;
/// The budget is counted in KiB, so a semaphore's permits (a `u32` per request) reach
/// 4 TiB.
const KIB: usize = 1024;

/// The memory reading a file of `size` bytes may take.
pub fn share_of(size: usize) -> usize {
    size.saturating_mul(BYTES_PER_FILE_BYTE)
        .saturating_add(FIXED)
}

/// The process's readers and memory budget, shared by every path a file arrives on.
pub struct Turns {
    readers: Arc<Semaphore>,
    memory: Arc<Semaphore>,
    budget: usize,
    read_for: Duration,
    /// One lane per organisation with a file being read or waiting; a lane goes when
    /// nobody holds or waits for it.
    lanes: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

/// A file's turn: held while it is read and reported.
pub struct Turn {
    /// Most memory the file may take (its share of the budget).
    pub share: usize,
    /// When its reading is given up.
    pub deadline: Deadline,
    _memory: OwnedSemaphorePermit,
    _reader: OwnedSemaphorePermit,
    lane: Option<(String, OwnedSemaphorePermit)>,
    lanes: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

/// A file whose share is larger than the whole budget: never read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the file is {size} bytes; reading it takes up to {} MiB, more than the {} MiB this \
     service reads files within (reconciliation.memory_budget_bytes), so it was not read",
    .share / MIB,
    .budget / MIB
)]
pub struct OverBudget {
    pub size: usize,
    pub share: usize,
    pub budget: usize,
}

impl Turns {
    pub fn new(readers: usize, budget: usize, read_for: Duration) -> Self {
        let permits = (budget / KIB).min(Semaphore::MAX_PERMITS);
        Self {
            readers: Arc::new(Semaphore::new(readers.max(1))),
            memory: Arc::new(Semaphore::new(permits)),
            budget,
            read_for,
            lanes: Arc::default(),
        }
    }

    /// Waits for `organisation`'s lane, a reader and the file's share of memory, in that
    /// order: a file waiting for its own organisation holds nothing anyone else needs.
    pub async fn take(&self, organisation: &str, size: usize) -> Result<Turn, OverBudget> {
        let share = share_of(size);
        if share > self.budget {
            return Err(OverBudget {
                size,
                share,
                budget: self.budget,
            });
        }
        let lane = {
            let mut lanes = self.lanes.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(
                lanes
                    .entry(organisation.to_owned())
                    .or_insert_with(|| Arc::new(Semaphore::new(1))),
            )
        };
        // The semaphores are never closed, so acquiring cannot fail.
        let closed = |_| OverBudget {
            size,
            share,
            budget: self.budget,
        };
        let lane = lane.acquire_owned().await.map_err(closed)?;
        let reader = Arc::clone(&self.readers)
            .acquire_owned()
            .await
            .map_err(closed)?;
        let kib = u32::try_from(share.div_ceil(KIB)).unwrap_or(u32::MAX);
        let memory = Arc::clone(&self.memory)
            .acquire_many_owned(kib)
            .await
            .map_err(closed)?;
        Ok(Turn {
            share,
            deadline: Deadline::after(self.read_for),
            _memory: memory,
            _reader: reader,
            lane: Some((organisation.to_owned(), lane)),
            lanes: Arc::clone(&self.lanes),
        })
    }

    /// How long reading one file may take.
    pub fn read_for(&self) -> Duration {
        self.read_for
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let Some((organisation, permit)) = self.lane.take() else {
            return;
        };
        drop(permit);
        let mut lanes = self.lanes.lock().unwrap_or_else(|e| e.into_inner());
        // Only the map holds it: nobody reads or waits for this organisation.
        if lanes
            .get(&organisation)
            .is_some_and(|lane| Arc::strong_count(lane) == 1)
        {
            lanes.remove(&organisation);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn turns(readers: usize, budget_mib: usize) -> Arc<Turns> {
        Arc::new(Turns::new(
            readers,
            budget_mib * MIB,
            Duration::from_secs(60),
        ))
    }

    /// A turn of a 1 MiB file asked for on a task of its own.
    fn waiting(
        turns: &Arc<Turns>,
        organisation: &'static str,
    ) -> tokio::task::JoinHandle<Result<(), OverBudget>> {
        let turns = Arc::clone(turns);
        tokio::spawn(async move { turns.take(organisation, MIB).await.map(drop) })
    }

    async fn given(turn: tokio::task::JoinHandle<Result<(), OverBudget>>) {
        tokio::time::timeout(Duration::from_secs(5), turn)
            .await
            .expect("the turn was never given")
            .unwrap()
            .unwrap();
    }

    #[tokio::test]
    async fn a_file_over_the_whole_budget_is_refused_at_once() {
        let turns = turns(2, 100);
        let refused = turns.take("a", 20 * MIB).await.err().unwrap();
        assert_eq!(refused.share, share_of(20 * MIB));
        assert!(
            refused.to_string().contains("more than the 100 MiB"),
            "{refused}"
        );
        assert!(turns.take("a", 10 * MIB).await.is_ok());
    }

    #[tokio::test]
    async fn one_organisation_reads_one_file_at_a_time_and_others_go_by() {
        let turns = turns(2, 1024);
        let first = turns.take("a", MIB).await.unwrap();
        let second = waiting(&turns, "a");
        // Another organisation gets the second reader meanwhile.
        let other = tokio::time::timeout(Duration::from_secs(5), turns.take("b", MIB))
            .await
            .expect("b waited for a")
            .unwrap();
        assert!(!second.is_finished());
        drop(first);
        given(second).await;
        drop(other);
        assert!(turns.lanes.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn files_read_at_once_share_one_budget() {
        let turns = turns(4, 100);
        // Each share is 6 MiB for the file and 16 besides: four fit, a fifth waits.
        let held: Vec<_> =
            futures_util::future::join_all(["a", "b", "c", "d"].map(|org| turns.take(org, MIB)))
                .await;
        assert!(held.iter().all(Result::is_ok));
        let budget_left = turns.memory.available_permits() * KIB;
        assert!(budget_left < share_of(MIB), "{budget_left}");
        let fifth = waiting(&turns, "e");
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!fifth.is_finished());
        drop(held);
        given(fifth).await;
    }
}
