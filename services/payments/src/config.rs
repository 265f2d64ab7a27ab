use coffer_http::config::{ConfigError, Validate};
use coffer_secrets::SecretsSettings;
use serde::{Deserialize, Serialize};

use crate::connectors::faults::Fault;
use crate::payouts::domain::{FeeSchedule, MAX_BASIS_POINTS, MAX_FIXED_FEE};

/// `coffer-payments`' own settings, beside the common ones of every service binary.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PaymentsConfig {
    pub payments: PaymentsSection,
    /// The master keys stored secrets are sealed with (docs/decisions/secrets.md).
    pub secrets: SecretsSettings,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct PaymentsSection {
    /// Where clients reach Coffer (the gateway); redirects to Coffer's pages start here.
    pub public_base_url: String,
    /// Secret key of card fingerprints, at least 32 characters; keep it stable, or the same
    /// card stops matching its earlier fingerprints.
    pub fingerprint_key: String,
    /// How long a call to the provider may take before its outcome counts as unknown
    /// (1 to 120 seconds).
    pub connector_timeout_ms: u64,
    /// How long a call stays unanswered before the provider is asked what it did; longer
    /// than three timeouts (a charge makes up to three calls), so a call under way is never
    /// settled beside it.
    pub settle_after_ms: u64,
    /// How long a payment may wait for its donor on a provider's challenge (3-D Secure)
    /// before it is given up; at least settle_after_ms, at most a week.
    pub donor_wait_ms: u64,
    /// For tests of failures only: a fault the test provider shows (fail_before_call,
    /// hang_after_call, abort_after_call, abort_after_commit). Empty in production.
    pub test_psp_fault: String,
    /// The test provider's fee on each payment it pays out: a share in basis points
    /// (1/100 %, 0 to 10000) plus a fixed amount in minor units (0 to 10000).
    pub payout_fee_basis_points: u32,
    pub payout_fee_fixed: i64,
    /// How often the payout worker looks for accounts to pay out (60 to 86400 seconds);
    /// each account is paid out once a day whatever the interval.
    pub payout_interval_seconds: u64,
    /// Stripe's API: `https://api.stripe.com`, or a server that answers as it does (tests).
    pub stripe_api: String,
    /// Whether card numbers may go from Coffer to a live Stripe account. Stripe allows it
    /// only to accounts it approved (PCI DSS SAQ D); off, live profiles take no card data.
    pub raw_card_data: bool,
}

impl Default for PaymentsSection {
    fn default() -> Self {
        Self {
            public_base_url: String::new(),
            fingerprint_key: String::new(),
            connector_timeout_ms: 10_000,
            settle_after_ms: 60_000,
            donor_wait_ms: 3_600_000,
            test_psp_fault: String::new(),
            payout_fee_basis_points: FeeSchedule::default().basis_points,
            payout_fee_fixed: FeeSchedule::default().fixed,
            payout_interval_seconds: 600,
            stripe_api: crate::ProviderSettings::default().stripe_api,
            raw_card_data: false,
        }
    }
}

impl PaymentsSection {
    /// The fee schedule these settings give.
    pub fn payout_fees(&self) -> FeeSchedule {
        FeeSchedule {
            basis_points: self.payout_fee_basis_points,
            fixed: self.payout_fee_fixed,
        }
    }
}

impl Validate for PaymentsConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        // Both are what `serve` needs (validate_to_serve); given, they must be well formed
        // for `migrate` too.
        let url = &self.payments.public_base_url;
        let well_formed = url.starts_with("http://") || url.starts_with("https://");
        if !url.is_empty() && !well_formed {
            return Err(ConfigError::invalid(
                "payments.public_base_url",
                "must be an http(s) URL",
            ));
        }
        let key = &self.payments.fingerprint_key;
        if !key.is_empty() && key.len() < 32 {
            return Err(ConfigError::invalid(
                "payments.fingerprint_key",
                "must be at least 32 characters",
            ));
        }
        let p = &self.payments;
        if let Some((setting, why)) = crate::settings::waits_refused(
            p.connector_timeout_ms,
            p.settle_after_ms,
            p.donor_wait_ms,
        ) {
            return Err(ConfigError::invalid(setting, why));
        }
        if !p.test_psp_fault.is_empty() && Fault::parse(&p.test_psp_fault).is_none() {
            return Err(ConfigError::invalid(
                "payments.test_psp_fault",
                "must be empty, fail_before_call, hang_after_call, abort_after_call or abort_after_commit",
            ));
        }
        if p.payout_fee_basis_points > MAX_BASIS_POINTS {
            return Err(ConfigError::invalid(
                "payments.payout_fee_basis_points",
                "must be 0 to 10000 (basis points, 1/100 %)",
            ));
        }
        if !(0..=MAX_FIXED_FEE).contains(&p.payout_fee_fixed) {
            return Err(ConfigError::invalid(
                "payments.payout_fee_fixed",
                "must be 0 to 10000 minor units",
            ));
        }
        if !(60..=86_400).contains(&p.payout_interval_seconds) {
            return Err(ConfigError::invalid(
                "payments.payout_interval_seconds",
                "must be 60 to 86400 seconds",
            ));
        }
        if let Some(why) = crate::connector_registry::stripe_api_refused(&self.payments.stripe_api)
        {
            return Err(ConfigError::invalid("payments.stripe_api", why));
        }
        self.secrets.keyring()?;
        Ok(())
    }

    /// Redirects and card fingerprints are made while serving only: `migrate` (a migration
    /// Job) needs neither, and so is never handed the fingerprint key. Serving needs
    /// the master key: connector accounts' keys are sealed with it.
    fn validate_to_serve(&self) -> Result<(), ConfigError> {
        if self.payments.public_base_url.is_empty() {
            return Err(ConfigError::invalid(
                "payments.public_base_url",
                "is required to serve: an http(s) URL",
            ));
        }
        if self.payments.fingerprint_key.is_empty() {
            return Err(ConfigError::invalid(
                "payments.fingerprint_key",
                "is required to serve: at least 32 characters",
            ));
        }
        self.secrets.require()?;
        Ok(())
    }
}
