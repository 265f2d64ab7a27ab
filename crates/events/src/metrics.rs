//! What an operator alerts on about events (docs/deployment.md, "Metrics to alert on"):
//! events committed but not yet on the broker, and events a consumer gave up on. Kept
//! process-wide and labelled by service and consumer, because `coffer dev` runs every
//! service, each with its own outbox and consumers, behind one `/metrics`.

use std::sync::LazyLock;
use std::time::Duration;

use coffer_model::clock::Clock;
use coffer_store::Store;
use prometheus::{IntCounterVec, IntGaugeVec, Opts, Registry};

use crate::outbox;

/// How often each service counts its outbox; a scrape sees a figure at most this old.
pub const SAMPLE_EVERY: Duration = Duration::from_secs(15);

struct EventMetrics {
    pending: IntGaugeVec,
    oldest_pending: IntGaugeVec,
    dead_lettered: IntCounterVec,
}

// The names and help are constants, so building them cannot fail.
#[allow(clippy::expect_used)]
static METRICS: LazyLock<EventMetrics> = LazyLock::new(|| EventMetrics {
    pending: IntGaugeVec::new(
        Opts::new(
            "outbox_pending_events",
            "Events committed by the service and not yet published to the broker",
        ),
        &["service"],
    )
    .expect("a valid gauge"),
    oldest_pending: IntGaugeVec::new(
        Opts::new(
            "outbox_oldest_pending_seconds",
            "How long the oldest event not yet published has waited (0 when none waits)",
        ),
        &["service"],
    )
    .expect("a valid gauge"),
    dead_lettered: IntCounterVec::new(
        Opts::new(
            "events_dead_lettered_total",
            "Events a consumer gave up on and moved to its dead-letter topic",
        ),
        &["consumer"],
    )
    .expect("a valid counter"),
});

/// Adds the event metrics to a server's registry; a second registration (several
/// services in one process, or several servers) is ignored.
pub fn register(registry: &Registry) {
    let m = &*METRICS;
    let _ = registry.register(Box::new(m.pending.clone()));
    let _ = registry.register(Box::new(m.oldest_pending.clone()));
    let _ = registry.register(Box::new(m.dead_lettered.clone()));
}

pub(crate) fn count_dead_letter(consumer: &str) {
    METRICS.dead_lettered.with_label_values(&[consumer]).inc();
}

/// Events `consumer` has dead-lettered since the process started.
pub fn dead_lettered(consumer: &str) -> u64 {
    METRICS.dead_lettered.with_label_values(&[consumer]).get()
}

/// Counts the service's outbox now and then, for as long as it runs. A failed count
/// (the database away) leaves the last figures, and readiness reports the database.
pub(crate) async fn sample_forever(
    service: &'static str,
    store: Store,
    clock: std::sync::Arc<dyn Clock>,
) {
    loop {
        match store.query(outbox::pending_summary).await {
            Ok((count, oldest_ms)) => {
                let waited = oldest_ms.map_or(0, |ms| (clock.unix_ms() - ms).max(0) / 1000);
                METRICS.pending.with_label_values(&[service]).set(count);
                METRICS
                    .oldest_pending
                    .with_label_values(&[service])
                    .set(waited);
            }
            Err(e) => tracing::debug!(error = %e, service, "counting the outbox failed"),
        }
        tokio::time::sleep(SAMPLE_EVERY).await;
    }
}
