//! A tenant's searches past its bound wait for a turn in a line of their own, within their
//! budget, rather than being refused at once: a dashboard sends several searches together,
//! each short, and refusing all but two made it retry what a moment's wait would have
//! answered. The line is bounded too (past it a search is refused, 429), and waiting holds
//! no connection, so one tenant's line takes nothing from another's searches.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::StoreError;

/// Searches that may wait per search that may run: a dashboard's page of widgets.
pub(crate) const WAITING_PER_RUNNING: usize = 4;

/// One tenant's line: permits to join it (running or waiting) and to run.
struct Line {
    admitted: Arc<Semaphore>,
    running: Arc<Semaphore>,
}

/// Every tenant's line, kept while it has a search running or waiting: the tenant's key
/// is whatever names its bound (a partner's organisations joined), so lines are dropped
/// once empty rather than kept for every key ever seen.
#[derive(Clone)]
pub(crate) struct Lines {
    running: usize,
    lines: Arc<Mutex<HashMap<String, Line>>>,
}

/// A search's turn to run; dropping it lets the next in its tenant's line run. Both
/// permits are given back when it is dropped, also when a waiting search's caller goes
/// away, so nothing is left counted.
pub(crate) struct Turn {
    permits: Option<(OwnedSemaphorePermit, OwnedSemaphorePermit)>,
    tenant: String,
    lines: Lines,
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.permits = None;
        self.lines.tidy(&self.tenant);
    }
}

impl Lines {
    /// At least one running per tenant, whatever `running` says.
    pub(crate) fn new(running: usize) -> Self {
        Self {
            running: running.max(1),
            lines: Arc::default(),
        }
    }

    /// `tenant`'s turn, waited for until `deadline`: refused
    /// ([`StoreError::SearchesBusy`]) at once when its line is full, and when the deadline
    /// comes first: the search never ran, its own organisation's did, so the answer is
    /// to send it again later (429), not to narrow it (503).
    pub(crate) async fn take(&self, tenant: &str, deadline: Instant) -> Result<Turn, StoreError> {
        let turn = self.wait(tenant, deadline).await;
        if turn.is_err() {
            self.tidy(tenant);
        }
        turn
    }

    async fn wait(&self, tenant: &str, deadline: Instant) -> Result<Turn, StoreError> {
        let (admitted, running) = {
            let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
            let line = lines.entry(tenant.to_owned()).or_insert_with(|| Line {
                admitted: Arc::new(Semaphore::new(self.running * (1 + WAITING_PER_RUNNING))),
                running: Arc::new(Semaphore::new(self.running)),
            });
            (Arc::clone(&line.admitted), Arc::clone(&line.running))
        };
        let admitted = admitted
            .try_acquire_owned()
            .map_err(|_| StoreError::SearchesBusy(self.running))?;
        let running = tokio::time::timeout_at(deadline, running.acquire_owned())
            .await
            .map_err(|_| StoreError::SearchesBusy(self.running))?
            .map_err(|_| StoreError::Cancelled)?;
        Ok(Turn {
            permits: Some((admitted, running)),
            tenant: tenant.to_owned(),
            lines: self.clone(),
        })
    }

    /// Drops `tenant`'s line if nothing holds or waits on it: the map's own handle is then
    /// the only one (a search about to wait clones it under the same lock).
    fn tidy(&self, tenant: &str) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.get(tenant).is_some_and(|line| {
            Arc::strong_count(&line.admitted) == 1 && Arc::strong_count(&line.running) == 1
        }) {
            lines.remove(tenant);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_tenant_waits_its_turn_and_past_its_line_is_refused() {
        let lines = Lines::new(1);
        let soon = || Instant::now() + Duration::from_millis(50);
        let first = lines.take("a", soon()).await.unwrap();
        // Another tenant has a line of its own.
        let other = lines.take("b", soon()).await.unwrap();
        // The next of "a" waits: past its deadline it is refused, and its place freed.
        assert!(matches!(
            lines.take("a", soon()).await,
            Err(StoreError::SearchesBusy(1))
        ));
        // Four may wait beside the one running; the sixth is refused at once.
        let far = Instant::now() + Duration::from_secs(60);
        let waiting: Vec<_> = (0..WAITING_PER_RUNNING)
            .map(|_| {
                let lines = lines.clone();
                tokio::spawn(async move { lines.take("a", far).await.map(drop) })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(matches!(
            lines.take("a", far).await,
            Err(StoreError::SearchesBusy(1))
        ));
        // As the running one ends, every waiting one gets its turn in the end.
        drop(first);
        for w in waiting {
            w.await.unwrap().unwrap();
        }
        drop(other);
        assert!(lines.take("a", soon()).await.is_ok());
        // Empty lines are not kept.
        assert!(lines.lines.lock().unwrap().is_empty());
    }
}
