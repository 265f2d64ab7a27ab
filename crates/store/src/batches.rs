//! Requests that arrive together, handled as one batch: a command whose every request
//! makes the same statements (recording a provider's answer, say) hands its item here, and
//! a batch of them costs one statement of each kind instead of one per request. Group
//! commit (group_commit.rs) already shares the transaction; this also shares the round
//! trips inside it.
//!
//! At most `at_once` batches are handled at a time; items that arrive meanwhile wait and
//! form the next batch, so batches grow with the load and stay single under none.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::runtime::Handle;
use tokio::sync::{Semaphore, mpsc, oneshot};

type Handler<I, O> = dyn Fn(Vec<I>) -> Pin<Box<dyn Future<Output = Vec<O>> + Send>> + Send + Sync;

/// Where items wait, each with the way back to its caller.
type Queue<I, O> = mpsc::UnboundedSender<(I, oneshot::Sender<O>)>;

pub struct Batches<I, O> {
    at_once: usize,
    max: usize,
    handler: Arc<Handler<I, O>>,
    /// Where the batches are gathered and handled: the runtime [`Batches::on`] named, or
    /// else that of the first [`Batches::submit`]'s caller.
    runtime: Option<Handle>,
    /// Started by the first [`Batches::submit`], and again by a later one when the runtime
    /// it ran on stopped (as [`crate::Store`]'s writers are).
    queue: Mutex<Option<Queue<I, O>>>,
}

impl<I: Send + 'static, O: Send + 'static> Batches<I, O> {
    /// `handler` gets each batch, in the order its items came, and answers one outcome per
    /// item in the same order.
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

    /// Handles `item` with whatever else arrives; None when the batch was dropped before
    /// it answered (its handler panicked).
    pub async fn submit(&self, item: I) -> Option<O> {
        let (reply, answer) = oneshot::channel();
        let queue = {
            let mut slot = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            match &*slot {
                Some(running) if !running.is_closed() => running.clone(),
                _ => slot.insert(self.start()).clone(),
            }
        };
        queue.send((item, reply)).ok()?;
        answer.await.ok()
    }

    fn start(&self) -> Queue<I, O> {
        let (queue, mut receiver) = mpsc::unbounded_channel::<(I, oneshot::Sender<O>)>();
        let (permits, max, handler) = (
            Arc::new(Semaphore::new(self.at_once)),
            self.max,
            Arc::clone(&self.handler),
        );
        let gathering = async move {
            while let Some(first) = receiver.recv().await {
                // Waiting for a free turn first lets the next batch gather meanwhile.
                let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
                    return;
                };
                let mut batch = vec![first];
                while batch.len() < max {
                    match receiver.try_recv() {
                        Ok(next) => batch.push(next),
                        Err(_) => break,
                    }
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
}
