//! Advancing a test clock: step by step to each moment something falls due on it, run
//! the scheduler's pass for that clock at that moment, and wait until payments has
//! answered its charge attempts, so that every invoice, charge, retry, suspension end and
//! cancellation happens in order.

use std::time::Duration;

use coffer_store::StoreError;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::scheduler::commands::on_clock;
use crate::state::Handles;
use crate::test_clocks::{commands, store};

/// How long one step waits for payments to answer its charges (a direct debit, for one,
/// stays pending until the bank collects it).
const ANSWER_WAIT: Duration = Duration::from_secs(10);

/// Runs each advance a command has begun in a task of its own, as it arrives.
pub(super) async fn run_begun(h: Handles, begun: Option<UnboundedReceiver<String>>) {
    let Some(mut begun) = begun else {
        return;
    };
    while let Some(clock) = begun.recv().await {
        let run = advance(h.clone(), clock);
        tokio::spawn(async move {
            // Left advancing, it is finished when billing next starts.
            if let Err(e) = run.await {
                tracing::warn!(error = %e, "advancing a test clock failed");
            }
        });
    }
}

/// Finishes the advances of test clocks a stopped process left half-way.
pub(super) async fn resume(h: Handles) {
    let clocks = match h.store.query(store::advancing).await {
        Ok(clocks) => clocks,
        Err(e) => {
            tracing::warn!(error = %e, "cannot list advancing test clocks");
            return;
        }
    };
    for test_clock in clocks {
        if let Err(e) = advance(h.clone(), test_clock.uuid).await {
            tracing::warn!(error = %e, "resuming a test clock's advance failed");
        }
    }
}

/// Runs an advance the clock has begun (status advancing, target set) to its end.
async fn advance(h: Handles, clock: String) -> Result<(), StoreError> {
    let id = clock.clone();
    let Some(start) = h.store.query(move |db| store::find(db, &id)).await? else {
        return Ok(());
    };
    let target = start.target_time.unwrap_or(start.frozen_time);
    let mut at = start.frozen_time;
    // Whatever is due by the clock's present comes first (a subscription made just now).
    let mut first = true;
    loop {
        // Each step is its own short transactions; between them other writers go first,
        // and a clock deleted meanwhile stops here.
        tokio::task::yield_now().await;
        let id = clock.clone();
        if h.store
            .query(move |db| store::find(db, &id))
            .await?
            .is_none()
        {
            return Ok(());
        }
        let (id, from) = (clock.clone(), if first { i64::MIN } else { at });
        first = false;
        let next = h
            .store
            .query(move |db| on_clock::next_moment(db, &id, from, target))
            .await?;
        let Some(moment) = next.map(|m| m.max(at)) else {
            break;
        };
        at = moment;
        let (id, out, now) = (clock.clone(), h.outbox.clone(), h.clock.unix());
        h.store
            .query(move |db| on_clock::step(db, &out, &id, moment, now))
            .await?;
        h.outbox.committed();
        let waited = tokio::time::Instant::now();
        loop {
            let id = clock.clone();
            if h.store
                .query(move |db| on_clock::pending_attempts(db, &id))
                .await?
                == 0
                || waited.elapsed() > ANSWER_WAIT
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let (id, now) = (clock.clone(), h.clock.unix());
    h.store
        .query(move |db| commands::finish(db, &id, target, now))
        .await
}
