//! The service's settings, as the binary (main.rs) or `coffer dev` hands them to
//! [`crate::Payments::new`], which gives each feature its part.

use std::time::Duration;

use coffer_events::RelaySettings;
use coffer_secrets::Secrets;

use crate::connector_registry::ProviderSettings;
use crate::connectors;
use crate::payouts::domain::FeeSchedule;

#[derive(Clone)]
pub struct PaymentsSettings {
    pub event_prefix: String,
    pub relay: RelaySettings,
    /// Where this Coffer is reached from outside (redirects to its pages start here).
    pub public_base_url: String,
    /// Key of the card fingerprints (HMAC-SHA256); keep it secret and stable.
    pub fingerprint_key: Vec<u8>,
    /// How long a call to the provider may take before its outcome counts as unknown.
    pub connector_timeout: Duration,
    /// How long a call stays unanswered before the provider is asked what it did.
    pub settle_after: Duration,
    /// How long a payment may wait for its donor on a provider's challenge (3-D Secure on
    /// the payment page) before it is given up: the provider is asked, and an unfinished
    /// one is cancelled there and fails.
    pub donor_wait: Duration,
    /// Faults the test provider shows (tests only; none in production).
    pub test_psp_faults: connectors::faults::Faults,
    /// What the test provider keeps from each payment it pays out.
    pub payout_fees: FeeSchedule,
    /// How often the payout worker looks for accounts to settle.
    pub payout_every: Duration,
    /// The master keys connector accounts' keys are sealed with; None serves the test
    /// provider only.
    pub secrets: Option<Secrets>,
    /// How connectors to real providers are made.
    pub providers: ProviderSettings,
}

impl Default for PaymentsSettings {
    fn default() -> Self {
        Self {
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            public_base_url: "http://127.0.0.1:8080".into(),
            fingerprint_key: b"coffer-development-fingerprint-key".to_vec(),
            connector_timeout: Duration::from_secs(10),
            settle_after: Duration::from_secs(60),
            donor_wait: Duration::from_secs(3600),
            test_psp_faults: connectors::faults::Faults::default(),
            payout_fees: FeeSchedule::default(),
            payout_every: Duration::from_secs(600),
            secrets: None,
            providers: ProviderSettings::default(),
        }
    }
}

/// Why the connector timeout and the settler's delay (both in milliseconds) are refused,
/// naming the setting, if they are. The timeout bounds one call; a charge makes up to three
/// (Stripe: its PaymentMethod, its PaymentIntent, the confirmation), and one still under
/// way must never be settled beside it, so the delay is longer than three timeouts, and at
/// most a day so an unanswered call is always settled. A donor is given at least as long
/// as the settler waits, and at most a week.
pub fn waits_refused(
    connector_timeout_ms: u64,
    settle_after_ms: u64,
    donor_wait_ms: u64,
) -> Option<(&'static str, &'static str)> {
    if !(1_000..=120_000).contains(&connector_timeout_ms) {
        return Some((
            "payments.connector_timeout_ms",
            "must be 1000 to 120000 milliseconds",
        ));
    }
    if settle_after_ms <= connector_timeout_ms.saturating_mul(3) || settle_after_ms > 86_400_000 {
        return Some((
            "payments.settle_after_ms",
            "must be longer than three times connector_timeout_ms and at most a day (86400000)",
        ));
    }
    if donor_wait_ms < settle_after_ms || donor_wait_ms > 604_800_000 {
        return Some((
            "payments.donor_wait_ms",
            "must be at least settle_after_ms and at most a week (604800000)",
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settler_waits_longer_than_a_charges_three_calls() {
        assert_eq!(waits_refused(10_000, 60_000, 3_600_000), None);
        assert_eq!(
            waits_refused(2_000, 6_000, 3_600_000).map(|r| r.0),
            Some("payments.settle_after_ms")
        );
        assert_eq!(waits_refused(2_000, 6_001, 3_600_000), None);
        assert_eq!(
            waits_refused(999, 60_000, 3_600_000).map(|r| r.0),
            Some("payments.connector_timeout_ms")
        );
        assert_eq!(
            waits_refused(10_000, 86_400_001, 3_600_000).map(|r| r.0),
            Some("payments.settle_after_ms")
        );
        assert_eq!(
            waits_refused(10_000, 60_000, 59_999).map(|r| r.0),
            Some("payments.donor_wait_ms")
        );
    }
}
