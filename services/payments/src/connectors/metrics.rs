//! What payments tell Prometheus about its providers, per provider (docs/deployment.md lists
//! what to alert on):
//! - `coffer_connector_calls_total{provider,call,result}`: calls by result (`ok`, `timeout`,
//!   `unreachable`, or `abandoned` when Coffer stopped waiting at its connector timeout);
//! - `coffer_connector_call_duration_seconds{provider,call}`: how long the provider took;
//! - `coffer_connector_charge_outcomes_total{provider,outcome}`: charges' answers
//!   (`succeeded`, `failed`, `pending`), whoever asked (a request, the settler);
//! - `coffer_provider_notifications_total{provider,outcome}`: notifications by what became
//!   of them: `applied`, `duplicate`; those that changed nothing, by why
//!   (provider_notifications/domain.rs `Kept`: `already_recorded`, `disagrees`, ...); the
//!   refusals (`unsigned`, `stale`, `mismatch` for a failed signature, `unreadable`,
//!   `no_secret`, `unknown_account`); and `failed` when Coffer could not apply one (5xx,
//!   so the provider sends it again);
//! - `coffer_connector_oldest_unsettled_seconds{provider}`: how old the oldest payment
//!   whose charge's answer is still unknown is, which grows while a provider is unreachable.
//!
//! Every label comes from a closed list, so no input adds series.

use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry};

#[derive(Clone)]
pub struct ConnectorMetrics {
    pub calls: IntCounterVec,
    pub duration: HistogramVec,
    pub outcomes: IntCounterVec,
    pub notifications: IntCounterVec,
    pub oldest_unsettled: IntGaugeVec,
}

impl ConnectorMetrics {
    pub fn new() -> Self {
        // The names and help are constants, so building them cannot fail.
        #[allow(clippy::expect_used)]
        Self {
            calls: IntCounterVec::new(
                Opts::new(
                    "connector_calls_total",
                    "Calls to payment providers by result",
                ),
                &["provider", "call", "result"],
            )
            .expect("a valid counter"),
            duration: HistogramVec::new(
                HistogramOpts::new(
                    "connector_call_duration_seconds",
                    "How long payment providers took to answer a call",
                )
                .buckets(vec![
                    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
                ]),
                &["provider", "call"],
            )
            .expect("a valid histogram"),
            outcomes: IntCounterVec::new(
                Opts::new(
                    "connector_charge_outcomes_total",
                    "Charges' answers from payment providers by outcome",
                ),
                &["provider", "outcome"],
            )
            .expect("a valid counter"),
            notifications: IntCounterVec::new(
                Opts::new(
                    "provider_notifications_total",
                    "Notifications from payment providers by what became of them",
                ),
                &["provider", "outcome"],
            )
            .expect("a valid counter"),
            oldest_unsettled: IntGaugeVec::new(
                Opts::new(
                    "connector_oldest_unsettled_seconds",
                    "How long the oldest charge whose answer is unknown has waited",
                ),
                &["provider"],
            )
            .expect("a valid gauge"),
        }
    }

    /// Adds these to the server's registry; a second registration (two hosts in one
    /// process, as in tests) is ignored.
    pub fn register(&self, registry: &Registry) {
        let _ = registry.register(Box::new(self.calls.clone()));
        let _ = registry.register(Box::new(self.duration.clone()));
        let _ = registry.register(Box::new(self.outcomes.clone()));
        let _ = registry.register(Box::new(self.notifications.clone()));
        let _ = registry.register(Box::new(self.oldest_unsettled.clone()));
    }
}

impl Default for ConnectorMetrics {
    fn default() -> Self {
        Self::new()
    }
}
