//! Requests that arrive together, handled as one batch: a command whose every request
//! makes the same statements (recording a provider's answer, say) hands its item here, and
//! a batch of them costs one statement of each kind instead of one per request. Group
//! commit (group_commit.rs) already shares the transaction; this also shares the round
//! trips inside it.
//!
//! At most `at_once` batches are handled at a time; items that arrive meanwhile wait and
//! form the next batch, so batches grow with the load and stay single under none.
//!
//! Items can be submitted in lanes (an API client's, say): a batch takes one item of each lane
//! that has one waiting in turn, so a lane with many waiting (a tenant flooding reads) does
//! not keep another's single item out of the next batch.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::runtime::Handle;
use tokio::sync::{Semaphore, mpsc, oneshot};

type Handler<I, O> = dyn Fn(Vec<I>) -> Pin<Box<dyn Future<Output = Vec<O>> + Send>> + Send + Sync;

/// An item waiting, with the way back to its caller.
type Waiting<I, O> = (I, oneshot::Sender<O>);

/// Where items are sent, each with its lane.
type Queue<I, O> = mpsc::UnboundedSender<(String, Waiting<I, O>)>;

pub struct Batches<I, O> {
    at_once: usize,
    max: usize,
    handler: Arc<Handler<I, O>>,
    /// Where the batches are gathered and handled: the runtime [`Batches::on`] named, or
    /// else that of the first submitting caller's.
    runtime: Option<Handle>,
    /// Whether an item whose caller went away is left out ([`Batches::without_abandoned`]).
    without_abandoned: bool,
    /// Started by the first [`Batches::submit_in`], and again by a later one when the
    /// runtime it ran on stopped (as [`crate::Store`]'s writers are).
    queue: Mutex<Option<Queue<I, O>>>,
}

impl<I: Send + 'static, O: Send + 'static> Batches<I, O> {
    /// `handler` gets each batch, one item of each lane in turn and each lane's in the
    /// order they came, and answers one outcome per item in the order it got them.
    pub fn new<F, Fut>(at_once: usize, max: usize, handler: F) -> Self
    where
        F: Fn(Vec<I>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<O>> + Send + 'static,
    {
        Self {
            at_once: at_once.max(1),
            max: max.max(1),
            handler: Arc::new(move |items| Box::pin(handler(items))),
            runtime: None,
            without_abandoned: false,
            queue: Mutex::new(None),
        }
    }

    /// Gathers and handles the batches on `runtime` whoever submits: one that outlives
    /// the callers' (an HTTP worker's, which stops on its own at shutdown) keeps items of
    /// other callers from being dropped with it.
    #[must_use]
    pub fn on(mut self, runtime: Handle) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// Leaves out of its batch an item whose caller no longer waits for it (a read that
    /// timed out): only for items without an effect, since the caller of one with an
    /// effect may have gone while the effect is still owed (a provider's answer to record).
    #[must_use]
    pub fn without_abandoned(mut self) -> Self {
        self.without_abandoned = true;
        self
    }

    /// Handles `item` with whatever else arrives; None when the batch was dropped before
    /// it answered (its handler panicked).
    pub async fn submit(&self, item: I) -> Option<O> {
        self.submit_in(String::new(), item).await
    }

    /// [`Batches::submit`] in `lane`: batches take items of the lanes in turn.
    pub async fn submit_in(&self, lane: String, item: I) -> Option<O> {
        let (reply, answer) = oneshot::channel();
        let queue = {
            let mut slot = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            match &*slot {
                Some(running) if !running.is_closed() => running.clone(),
                _ => slot.insert(self.start()).clone(),
            }
        };
        queue.send((lane, (item, reply))).ok()?;
        answer.await.ok()
    }

    fn start(&self) -> Queue<I, O> {
        let (queue, mut receiver) = mpsc::unbounded_channel::<(String, Waiting<I, O>)>();
        let (permits, max, handler, without_abandoned) = (
            Arc::new(Semaphore::new(self.at_once)),
            self.max,
            Arc::clone(&self.handler),
            self.without_abandoned,
        );
        let gathering = async move {
            let mut lanes = Lanes::default();
            loop {
                if lanes.is_empty() {
                    let Some((lane, first)) = receiver.recv().await else {
                        return;
                    };
                    lanes.push(lane, first);
                }
                // Waiting for a free turn first lets the next batch gather meanwhile.
                let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
                    return;
                };
                // Everything sent so far, so each lane's turn counts what waits in it.
                while let Ok((lane, next)) = receiver.try_recv() {
                    lanes.push(lane, next);
                }
                // Reads whose callers went away are dropped as they are taken, so they
                // leave no hole in a batch while others wait.
                let batch = lanes.take(max, |(_, reply)| !(without_abandoned && reply.is_closed()));
                if batch.is_empty() {
                    continue;
                }
                let handler = Arc::clone(&handler);
                tokio::spawn(async move {
                    let (items, replies): (Vec<I>, Vec<_>) = batch.into_iter().unzip();
                    let outcomes = handler(items).await;
                    for (reply, outcome) in replies.into_iter().zip(outcomes) {
                        // A caller that went away no longer needs the answer.
                        let _ = reply.send(outcome);
                    }
                    drop(permit);
                });
            }
        };
        match &self.runtime {
            Some(runtime) => drop(runtime.spawn(gathering)),
            None => drop(tokio::spawn(gathering)),
        }
        queue
    }
}

/// The items waiting, by lane, and the lanes in the order of their turns.
struct Lanes<T> {
    waiting: HashMap<String, VecDeque<T>>,
    turns: VecDeque<String>,
}

impl<T> Default for Lanes<T> {
    fn default() -> Self {
        Self {
            waiting: HashMap::new(),
            turns: VecDeque::new(),
        }
    }
}

impl<T> Lanes<T> {
    fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    fn push(&mut self, lane: String, item: T) {
        match self.waiting.get_mut(&lane) {
            Some(items) => items.push_back(item),
            None => {
                self.waiting.insert(lane.clone(), VecDeque::from([item]));
                self.turns.push_back(lane);
            }
        }
    }

    /// Up to `max` items that are `wanted`, one of each lane in turn, each lane's in the
    /// order they came; the unwanted ones met on the way are dropped.
    fn take(&mut self, max: usize, wanted: impl Fn(&T) -> bool) -> Vec<T> {
        let mut batch = Vec::new();
        while batch.len() < max {
            let Some(lane) = self.turns.pop_front() else {
                break;
            };
            // A lane is in `turns` exactly while it has items waiting.
            let items = self.waiting.entry(lane.clone()).or_default();
            while let Some(item) = items.pop_front() {
                if wanted(&item) {
                    batch.push(item);
                    break;
                }
            }
            if items.is_empty() {
                self.waiting.remove(&lane);
            } else {
                self.turns.push_back(lane);
            }
        }
        batch
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn items_that_arrive_together_share_a_batch_and_each_gets_its_own_answer() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let batches = Arc::new(Batches::new(1, 64, move |items: Vec<u32>| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                items.into_iter().map(|i| i * 10).collect()
            }
        }));
        let submitted: Vec<_> = (0..40)
            .map(|i| {
                let batches = Arc::clone(&batches);
                tokio::spawn(async move { (i, batches.submit(i).await) })
            })
            .collect();
        for handle in submitted {
            let (i, answer) = handle.await.unwrap();
            assert_eq!(answer, Some(i * 10));
        }
        let batches_made = calls.load(Ordering::SeqCst);
        assert!(
            batches_made < 40,
            "{batches_made} batches for 40 items sent at once"
        );
    }

    #[test]
    fn a_batch_takes_the_lanes_in_turn() {
        let mut lanes = Lanes::default();
        for i in 0..100 {
            lanes.push("flood".to_owned(), ("flood", i));
        }
        lanes.push("quiet".to_owned(), ("quiet", 0));
        let first = lanes.take(8, |_| true);
        assert_eq!(first[..3], [("flood", 0), ("quiet", 0), ("flood", 1)]);
        assert_eq!(first.len(), 8);
        let rest: Vec<_> =
            std::iter::from_fn(|| Some(lanes.take(8, |_| true)).filter(|b| !b.is_empty()))
                .flatten()
                .collect();
        let expected: Vec<_> = (7..100).map(|i| ("flood", i)).collect();
        assert_eq!(rest, expected, "the flood's own items keep their order");
        assert!(lanes.is_empty());
    }

    #[tokio::test]
    async fn an_item_of_another_lane_goes_in_the_next_batch_however_many_wait() {
        let seen = Arc::new(Mutex::new(Vec::<Vec<(&'static str, u32)>>::new()));
        // Closed until the quiet item is sent, so the first batch is still being handled.
        let gate = Arc::new(Semaphore::new(0));
        let (record, opened) = (Arc::clone(&seen), Arc::clone(&gate));
        let batches = Arc::new(Batches::new(
            1,
            4,
            move |items: Vec<(&'static str, u32)>| {
                record.lock().unwrap().push(items.clone());
                let opened = Arc::clone(&opened);
                async move {
                    drop(opened.acquire().await.unwrap());
                    items.into_iter().map(|(_, i)| i).collect()
                }
            },
        ));
        let submit = |lane: &'static str, i: u32| {
            let batches = Arc::clone(&batches);
            tokio::spawn(async move { batches.submit_in(lane.to_owned(), (lane, i)).await })
        };
        let flood: Vec<_> = (0..40).map(|i| submit("flood", i)).collect();
        // On this test's one thread, the submitted tasks run while this one sleeps.
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let quiet = submit("quiet", 0);
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        gate.add_permits(1);
        assert_eq!(quiet.await.unwrap(), Some(0));
        for (i, handle) in flood.into_iter().enumerate() {
            assert_eq!(handle.await.unwrap(), Some(u32::try_from(i).unwrap()));
        }
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen[0],
            [("flood", 0), ("flood", 1), ("flood", 2), ("flood", 3)]
        );
        // Sent while the first batch was handled, behind 36 of the flood: first in line
        // would have put it in the eleventh batch.
        assert_eq!(
            seen[1],
            [("flood", 4), ("quiet", 0), ("flood", 5), ("flood", 6)]
        );
    }

    #[tokio::test]
    async fn items_whose_callers_went_away_are_left_out_when_asked() {
        let seen = Arc::new(Mutex::new(Vec::<Vec<u32>>::new()));
        let gate = Arc::new(Semaphore::new(0));
        let (record, opened) = (Arc::clone(&seen), Arc::clone(&gate));
        let batches = Arc::new(
            // Two at most: the second batch is full only if the abandoned item left no hole.
            Batches::new(1, 2, move |items: Vec<u32>| {
                record.lock().unwrap().push(items.clone());
                let opened = Arc::clone(&opened);
                async move {
                    drop(opened.acquire().await.unwrap());
                    items
                }
            })
            .without_abandoned(),
        );
        let submit = |i: u32| {
            let batches = Arc::clone(&batches);
            tokio::spawn(async move { batches.submit(i).await })
        };
        let first = submit(0);
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let (gone, kept, also_kept) = (submit(1), submit(2), submit(3));
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        gone.abort();
        let _ = gone.await;
        gate.add_permits(1);
        assert_eq!(first.await.unwrap(), Some(0));
        assert_eq!(kept.await.unwrap(), Some(2));
        assert_eq!(also_kept.await.unwrap(), Some(3));
        assert_eq!(*seen.lock().unwrap(), [vec![0], vec![2, 3]]);
    }
}
