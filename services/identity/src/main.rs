//! `coffer-identity`: the identity service on its own (distributed mode).
//!
//! `coffer-identity serve` migrates, then serves; `coffer-identity migrate` only migrates.
//! Settings come from `COFFER_*` environment variables or the TOML file in `COFFER_CONFIG`
//! (see docs/configuration.md).

use std::sync::Arc;
use std::time::Duration;

use coffer_auth::SharedKeys;
use coffer_http::Module;
use coffer_identity::config::IdentityConfig;
use coffer_identity::{Identity, IdentitySettings, MIGRATIONS};
use coffer_service::{Built, Started};

fn main() -> std::process::ExitCode {
    coffer_service::main(
        "coffer-identity",
        MIGRATIONS,
        |s: Started<IdentityConfig>| async move {
            s.ensure_topics(&["identity", coffer_partners::DOMAIN])
                .await?;
            // Identity verifies with its own keys; it never fetches its own JWKS.
            let keys = SharedKeys::default();
            let verifier = s.verifier(Some(keys.clone()))?;
            let (common, c) = (&s.common, &s.config);
            let secrets = c.secrets.require()?;
            let settings = IdentitySettings {
                issuer: common.auth.issuer.clone(),
                event_prefix: common.events.prefix.clone(),
                relay: common.relay_settings(),
                token_lifetime_secs: c.token.lifetime_secs,
                key_reload: Duration::from_secs(c.token.key_reload_secs),
                read_cache_ttl: Duration::from_millis(c.cache.read_ttl_ms),
                failure_throttle: c.token_failures,
                sso: c.sso.clone(),
            };
            let identity = Identity::start(
                s.store.clone(),
                Arc::clone(&s.clock),
                keys,
                s.bus.clone(),
                secrets,
                settings,
            )
            .await?;
            Ok(Built {
                modules: vec![Arc::new(identity) as Arc<dyn Module>],
                verifier,
            })
        },
    )
}
