//! `coffer-notifications`: the notifications service on its own (distributed mode). It
//! verifies tokens against identity's JWKS (`COFFER_AUTH__JWKS_URL`) and learns
//! organisations and accounts from identity's events.

use std::sync::Arc;

use coffer_http::Module;
use coffer_notifications::config::NotificationsConfig;
use coffer_notifications::{MIGRATIONS, Notifications, NotificationsSettings};
use coffer_service::{Built, Started};

fn main() -> std::process::ExitCode {
    coffer_service::main(
        "coffer-notifications",
        MIGRATIONS,
        |s: Started<NotificationsConfig>| async move {
            s.ensure_topics(&coffer_events::catalogue::domains())
                .await?;
            let verifier = s.verifier(None)?;
            let secrets = s.config.secrets.require()?;
            let section = &s.config.notifications;
            let addresses = section.address_policy()?;
            if addresses.widened() {
                tracing::warn!(
                    subnets = %section.allow_subnets,
                    "deliveries may reach the allowed subnets beyond public addresses"
                );
            }
            let settings = NotificationsSettings {
                event_prefix: s.common.events.prefix.clone(),
                relay: s.common.relay_settings(),
                addresses,
                extra_roots: section.extra_roots()?,
                retention_days: section.retention_days,
                max_in_flight: section.max_in_flight,
                max_in_flight_per_endpoint: section.max_in_flight_per_endpoint,
                max_in_flight_per_organisation: section.max_in_flight_per_organisation,
                max_endpoints_per_organisation: section.max_endpoints_per_organisation,
            };
            let notifications = Notifications::start(
                s.store.clone(),
                Arc::clone(&s.clock),
                s.bus.clone(),
                secrets,
                settings,
            )
            .await?;
            Ok(Built {
                modules: vec![Arc::new(notifications) as Arc<dyn Module>],
                verifier,
            })
        },
    )
}
