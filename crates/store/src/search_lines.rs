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

/// A search's place in its tenant's line, running or waiting. Places are only taken under
/// the map's lock, so a line whose places are all free has nobody about to join it and
/// can be dropped; each place looks whether its line is empty once it is given back, also
/// when its search's caller went away while it waited.
struct Place {
    admitted: Option<OwnedSemaphorePermit>,
    tenant: String,
    lines: Lines,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.admitted = None;
        self.lines.tidy(&self.tenant);
    }
}

/// A search's turn to run; dropping it lets the next in its tenant's line run, then gives
/// its place back (fields drop in this order).
pub(crate) struct Turn {
    _running: OwnedSemaphorePermit,
    _place: Place,
}

impl Lines {
    /// At least one running per tenant, whatever `running` says.
    pub(crate) fn new(running: usize) -> Self {
        Self {
            running: running.max(1),
            lines: Arc::default(),
        }
    }

    /// Places in one line: those running and those waiting.
    fn places(&self) -> usize {
        self.running * (1 + WAITING_PER_RUNNING)
    }

    /// `tenant`'s turn, waited for until `deadline`: refused
    /// ([`StoreError::SearchesBusy`]) at once when its line is full, and when the deadline
    /// comes first: the search never ran, its own organisation's did, so the answer is
    /// to send it again later (429), not to narrow it (503).
    pub(crate) async fn take(&self, tenant: &str, deadline: Instant) -> Result<Turn, StoreError> {
        let (place, running) = {
            let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
            let line = lines.entry(tenant.to_owned()).or_insert_with(|| Line {
                admitted: Arc::new(Semaphore::new(self.places())),
                running: Arc::new(Semaphore::new(self.running)),
            });
            let admitted = Arc::clone(&line.admitted)
                .try_acquire_owned()
                .map_err(|_| StoreError::SearchesBusy(self.running))?;
            let place = Place {
                admitted: Some(admitted),
                tenant: tenant.to_owned(),
                lines: self.clone(),
            };
            (place, Arc::clone(&line.running))
        };
        let running = tokio::time::timeout_at(deadline, running.acquire_owned())
            .await
            .map_err(|_| StoreError::SearchesBusy(self.running))?
            .map_err(|_| StoreError::Cancelled)?;
        Ok(Turn {
            _running: running,
            _place: place,
        })
    }

    /// Drops `tenant`'s line if every place in it is free.
    fn tidy(&self, tenant: &str) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines
            .get(tenant)
            .is_some_and(|line| line.admitted.available_permits() == self.places())
        {
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

    #[tokio::test]
    async fn a_waiter_whose_caller_went_away_leaves_no_line_behind() {
        let lines = Lines::new(1);
        let far = Instant::now() + Duration::from_secs(60);
        let first = lines.take("a", far).await.unwrap();
        let waiter = {
            let lines = lines.clone();
            tokio::spawn(async move { lines.take("a", far).await.map(drop) })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        // The running search ends and the waiter's caller goes away at once, before or
        // after its turn was handed over: either way its place is given back.
        drop(first);
        waiter.abort();
        let _ = waiter.await;
        assert!(lines.lines.lock().unwrap().is_empty());
        // And the line still admits its full count afterwards.
        let _turn = lines.take("a", far).await.unwrap();
    }
}
