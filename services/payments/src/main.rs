//! `coffer-payments`: the payments service on its own (distributed mode). It verifies
//! tokens against identity's JWKS (`COFFER_AUTH__JWKS_URL`) and learns organisations and
//! accounts from identity's events.

use std::sync::Arc;
use std::time::Duration;

use coffer_http::Module;
use coffer_payments::config::PaymentsConfig;
use coffer_payments::connectors::faults::{Fault, Faults};
use coffer_payments::{MIGRATIONS, Payments, PaymentsSettings, ProviderSettings};
use coffer_service::{Built, Started};

fn main() -> std::process::ExitCode {
    coffer_service::main(
        "coffer-payments",
        MIGRATIONS,
        |s: Started<PaymentsConfig>| async move {
            s.ensure_topics(&[
                "supporters",
                "payment_gateway",
                "subscriptions",
                "reconciliation",
                coffer_partners::DOMAIN,
            ])
            .await?;
            let verifier = s.verifier(None)?;
            let settings = PaymentsSettings {
                event_prefix: s.common.events.prefix.clone(),
                relay: s.common.relay_settings(),
                public_base_url: s
                    .config
                    .payments
                    .public_base_url
                    .trim_end_matches('/')
                    .to_owned(),
                fingerprint_key: s.config.payments.fingerprint_key.clone().into_bytes(),
                connector_timeout: Duration::from_millis(s.config.payments.connector_timeout_ms),
                settle_after: Duration::from_millis(s.config.payments.settle_after_ms),
                donor_wait: Duration::from_millis(s.config.payments.donor_wait_ms),
                test_psp_faults: Faults::new(Fault::parse(&s.config.payments.test_psp_fault)),
                payout_fees: s.config.payments.payout_fees(),
                payout_every: Duration::from_secs(s.config.payments.payout_interval_seconds),
                secrets: s.config.secrets.keyring()?,
                providers: ProviderSettings {
                    stripe_api: s.config.payments.stripe_api.clone(),
                    raw_card_data: s.config.payments.raw_card_data,
                    timeout: Duration::from_millis(s.config.payments.connector_timeout_ms),
                },
            };
            let payments = Payments::start(
                s.store.clone(),
                Arc::clone(&s.clock),
                s.bus.clone(),
                settings,
            )
            .await?;
            Ok(Built {
                modules: vec![Arc::new(payments) as Arc<dyn Module>],
                verifier,
            })
        },
    )
}
