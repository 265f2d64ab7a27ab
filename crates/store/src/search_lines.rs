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

/// Every tenant's line. One is kept per tenant that has searched, for the life of the
/// process: two semaphores each, which a count of organisations bounds.
#[derive(Clone)]
pub(crate) struct Lines {
    running: usize,
    lines: Arc<Mutex<HashMap<String, Line>>>,
}

/// A search's turn to run; dropping it lets the next in its tenant's line run. Both
/// permits are given back when it is dropped, also when a waiting search's caller goes
/// away, so nothing is left counted.
pub(crate) struct Turn {
    _admitted: OwnedSemaphorePermit,
    _running: OwnedSemaphorePermit,
}

impl Lines {
    /// At least one running per tenant, whatever `running` says.
    pub(crate) fn new(running: usize) -> Self {
        Self {
            running: running.max(1),
            lines: Arc::default(),
        }
    }

    /// `tenant`'s turn, waited for until `deadline`: refused at once
    /// ([`StoreError::SearchesBusy`]) when its line is full, and
    /// [`StoreError::SearchTimedOut`] when the deadline comes first.
    pub(crate) async fn take(&self, tenant: &str, deadline: Instant) -> Result<Turn, StoreError> {
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
            .map_err(|_| StoreError::SearchTimedOut)?
            .map_err(|_| StoreError::Cancelled)?;
        Ok(Turn {
            _admitted: admitted,
            _running: running,
        })
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
        // The next of "a" waits: past its deadline it is stopped, and its place freed.
        assert!(matches!(
            lines.take("a", soon()).await,
            Err(StoreError::SearchTimedOut)
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
    }
}
