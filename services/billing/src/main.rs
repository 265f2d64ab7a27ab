//! `coffer-billing`: the billing service on its own (distributed mode). It verifies tokens
//! against identity's JWKS (`COFFER_AUTH__JWKS_URL`) and learns organisations and accounts
//! from identity's events.

use std::sync::Arc;

use std::time::Duration;

use coffer_billing::config::BillingConfig;
use coffer_billing::{Billing, BillingSettings, MIGRATIONS};
use coffer_http::Module;
use coffer_service::{Built, Started};

fn main() -> std::process::ExitCode {
    coffer_service::main(
        "coffer-billing",
        MIGRATIONS,
        |s: Started<BillingConfig>| async move {
            s.ensure_topics(&[
                "subscriptions",
                "payment_gateway",
                "supporters",
                coffer_partners::DOMAIN,
            ])
            .await?;
            let verifier = s.verifier(None)?;
            let settings = BillingSettings {
                event_prefix: s.common.events.prefix.clone(),
                relay: s.common.relay_settings(),
                scheduler_every: Duration::from_millis(s.config.billing.scheduler_interval_ms),
                scheduler_workers: s.config.billing.scheduler_workers,
            };
            let billing = Billing::new(
                s.store.clone(),
                Arc::clone(&s.clock),
                s.bus.clone(),
                settings,
            );
            Ok(Built {
                modules: vec![Arc::new(billing) as Arc<dyn Module>],
                verifier,
            })
        },
    )
}
