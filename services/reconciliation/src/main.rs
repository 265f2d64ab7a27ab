//! `coffer-reconciliation`: the reconciliation service on its own (distributed mode). It
//! verifies tokens against identity's JWKS, learns organisations and accounts from
//! identity's events and payouts from payments', and announces what bank files show.

use std::sync::Arc;
use std::time::Duration;

use coffer_http::Module;
use coffer_reconciliation::config::ReconciliationConfig;
use coffer_reconciliation::object_store::ObjectStore;
use coffer_reconciliation::{MIGRATIONS, Reconciliation, ReconciliationSettings};
use coffer_service::{Built, Started};

fn main() -> std::process::ExitCode {
    coffer_service::main(
        "coffer-reconciliation",
        MIGRATIONS,
        |s: Started<ReconciliationConfig>| async move {
            s.ensure_topics(&[
                "reconciliation",
                "identity",
                "payment_gateway",
                coffer_partners::DOMAIN,
            ])
            .await?;
            let verifier = s.verifier(None)?;
            let section = &s.config.reconciliation;
            let sftp_addresses = section.sftp_address_policy()?;
            if sftp_addresses.widened() {
                tracing::warn!(
                    subnets = %section.sftp_allow_subnets,
                    "SFTP sources may reach the allowed subnets beyond public addresses"
                );
            }
            let settings = ReconciliationSettings {
                event_prefix: s.common.events.prefix.clone(),
                relay: s.common.relay_settings(),
                max_file_bytes: s.config.reconciliation.max_file_bytes,
                secrets: s.config.secrets.keyring()?,
                objects: s.config.reconciliation.s3.store()?.map(ObjectStore::S3),
                read_every: Duration::from_millis(s.config.reconciliation.read_every_ms),
                readers: section.readers,
                memory_budget_bytes: section.memory_budget_bytes,
                read_for: Duration::from_secs(section.read_seconds),
                sftp_addresses,
            };
            let reconciliation = Reconciliation::start(
                s.store.clone(),
                Arc::clone(&s.clock),
                s.bus.clone(),
                settings,
            )
            .await?;
            Ok(Built {
                modules: vec![Arc::new(reconciliation) as Arc<dyn Module>],
                verifier,
            })
        },
    )
}
