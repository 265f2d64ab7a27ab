//! What deliveries tell Prometheus (docs/deployment.md lists what to alert on):
//! - `coffer_webhook_deliveries_total{outcome}`: tries by outcome (`delivered`, `rejected`
//!   for a non-2xx answer, `unanswered` for a network error, timeout or refused address);
//! - `coffer_webhook_delivery_duration_seconds`: how long receivers took;
//! - `coffer_webhook_tasks_waiting`: deliveries not yet made (due or scheduled);
//! - `coffer_webhook_oldest_due_seconds`: how long the longest-waiting due delivery has
//!   waited, which grows when senders fall behind.

use prometheus::{Histogram, HistogramOpts, IntCounterVec, IntGauge, Opts, Registry};

#[derive(Clone)]
pub struct DeliveryMetrics {
    pub tries: IntCounterVec,
    pub duration: Histogram,
    pub waiting: IntGauge,
    pub oldest_due: IntGauge,
}

impl DeliveryMetrics {
    pub fn new() -> Self {
        // The names and help are constants, so building them cannot fail.
        #[allow(clippy::expect_used)]
        Self {
            tries: IntCounterVec::new(
                Opts::new(
                    "webhook_deliveries_total",
                    "Webhook delivery tries by outcome",
                ),
                &["outcome"],
            )
            .expect("a valid counter"),
            duration: Histogram::with_opts(
                HistogramOpts::new(
                    "webhook_delivery_duration_seconds",
                    "How long receivers took to answer a delivery",
                )
                .buckets(vec![
                    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0,
                ]),
            )
            .expect("a valid histogram"),
            waiting: IntGauge::new("webhook_tasks_waiting", "Webhook deliveries not yet made")
                .expect("a valid gauge"),
            oldest_due: IntGauge::new(
                "webhook_oldest_due_seconds",
                "How long the longest-waiting due webhook delivery has waited",
            )
            .expect("a valid gauge"),
        }
    }

    /// Adds these to the server's registry; a second registration (two hosts in one
    /// process, as in tests) is ignored.
    pub fn register(&self, registry: &Registry) {
        let _ = registry.register(Box::new(self.tries.clone()));
        let _ = registry.register(Box::new(self.duration.clone()));
        let _ = registry.register(Box::new(self.waiting.clone()));
        let _ = registry.register(Box::new(self.oldest_due.clone()));
    }
}

impl Default for DeliveryMetrics {
    fn default() -> Self {
        Self::new()
    }
}
