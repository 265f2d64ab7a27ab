//! The scheduler worker: the scheduler's pass over the real clock, every few seconds.

use std::time::Duration;

use coffer_store::{Backend, StoreError};

use crate::scheduler;
use crate::state::Handles;

/// Runs the scheduler's pass every `every`, for as long as the service runs. On
/// PostgreSQL `workers` passes run side by side, each on its own connection: their claims
/// skip each other's rows, so a large pass is shared among them the way it is among
/// replicas, and uses more than one core of the database. SQLite has one writer, so it
/// runs one.
pub(super) async fn run_forever(h: Handles, every: Duration, workers: usize) {
    let workers = match h.store.backend() {
        Backend::Postgres => workers.max(1),
        Backend::Sqlite => 1,
    };
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let now = h.clock.unix();
        let passes: Vec<_> = (0..workers)
            .map(|_| {
                let (store, out) = (h.store.clone(), h.outbox.clone());
                tokio::spawn(async move {
                    store
                        .run(move |db| {
                            scheduler::tick(db, &out, now, None).map_err(StoreError::from)
                        })
                        .await
                })
            })
            .collect();
        let mut handled = 0;
        for pass in passes {
            match pass.await {
                Ok(Ok(n)) => handled += n,
                Ok(Err(e)) => tracing::warn!(error = %e, "billing scheduler pass failed; retrying"),
                Err(e) => tracing::warn!(error = %e, "billing scheduler pass stopped"),
            }
        }
        if handled > 0 {
            // Operators (and the tests) filter on the scheduler's name, which this loop
            // kept when it moved here.
            tracing::debug!(target: "coffer_billing::scheduler", handled, "billing scheduler pass");
            h.outbox.committed();
        }
    }
}
