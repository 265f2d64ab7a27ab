//! The identity service: API clients and the OAuth 2.0 token endpoint, signing keys and
//! their JWKS, and the directory of organisations and accounts.

pub mod admin;
mod announce;
pub mod config;
mod directory_cache;
pub mod domain;
pub mod keyring;
pub(crate) mod routes;
mod schema;
mod sealed_keys;
pub mod store;
pub mod token_grant;
pub mod token_throttle;

use std::sync::Arc;

use actix_web::web;
use coffer_auth::SharedKeys;
use coffer_events::{Bus, Outbox, Relay, RelaySettings};
use coffer_http::{Module, ReadyFuture};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::{Migrations, Store};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

use crate::admin::Admin;
use crate::directory_cache::DirectoryCache;
use crate::keyring::{Keyring, KeyringError};
use crate::token_grant::TokenIssuer;
use crate::token_throttle::{FailureThrottle, ThrottleSettings};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/identity/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/identity/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "identity",
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};

/// What identity needs from the process that hosts it.
#[derive(Clone)]
pub struct IdentitySettings {
    pub issuer: String,
    /// Prefix of event names (`<prefix>.event.identity...`).
    pub event_prefix: String,
    pub relay: RelaySettings,
    pub token_lifetime_secs: i64,
    /// How often signing keys are reread, so a rotation made elsewhere reaches this process.
    pub key_reload: std::time::Duration,
    /// How long a read of a client or an organisation may be served from memory; bounds
    /// how long a change made elsewhere (another replica, the admin CLI) takes to show.
    pub read_cache_ttl: std::time::Duration,
    /// When failed client authentications at the token endpoint are answered 429.
    pub failure_throttle: ThrottleSettings,
}

impl Default for IdentitySettings {
    fn default() -> Self {
        Self {
            issuer: "coffer".into(),
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            token_lifetime_secs: 3600,
            key_reload: std::time::Duration::from_secs(60),
            read_cache_ttl: std::time::Duration::from_secs(2),
            failure_throttle: ThrottleSettings::default(),
        }
    }
}

/// Shared by identity's handlers.
pub(crate) struct IdentityState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub outbox: Outbox,
    pub relay: Arc<Relay>,
    pub bus: Arc<dyn Bus>,
    pub key_reload: std::time::Duration,
    pub keyring: Arc<Keyring>,
    pub issuer: TokenIssuer,
    pub failures: FailureThrottle,
    pub directory: DirectoryCache,
    /// For the operator actions that make keys.
    pub secrets: Secrets,
}

/// The identity service as an HTTP module.
pub struct Identity {
    state: web::Data<IdentityState>,
}

impl Identity {
    /// Loads (or creates) the signing keys, sealed with `secrets`, and publishes them into
    /// `keys`. The store must be migrated already.
    pub async fn start(
        store: Store,
        clock: Arc<dyn Clock>,
        keys: SharedKeys,
        bus: Arc<dyn Bus>,
        secrets: Secrets,
        settings: IdentitySettings,
    ) -> Result<Self, KeyringError> {
        let outbox = Outbox::new(settings.event_prefix.clone(), Arc::clone(&clock));
        let relay = Arc::new(Relay::new(
            store.clone(),
            Arc::clone(&bus),
            Arc::clone(&clock),
            outbox.signal(),
            settings.relay.clone(),
        ));
        let keyring = Arc::new(Keyring::new(
            store.clone(),
            Arc::clone(&clock),
            secrets.clone(),
            settings.token_lifetime_secs,
            keys,
        ));
        keyring.start().await?;
        let key_reload = settings.key_reload;
        let issuer = TokenIssuer::new(
            store.clone(),
            Arc::clone(&keyring),
            Arc::clone(&clock),
            settings.issuer,
            settings.token_lifetime_secs,
            settings.read_cache_ttl,
        );
        let failures = FailureThrottle::new(Arc::clone(&clock), settings.failure_throttle);
        let directory = DirectoryCache::new(settings.read_cache_ttl);
        Ok(Self {
            state: web::Data::new(IdentityState {
                store,
                clock,
                outbox,
                relay,
                bus,
                key_reload,
                keyring,
                issuer,
                failures,
                directory,
                secrets,
            }),
        })
    }
}

impl Identity {
    /// Operator actions in this process, sharing the outbox so their events go out at once.
    pub fn admin(&self) -> Admin {
        Admin::new(
            self.state.store.clone(),
            Arc::clone(&self.state.clock),
            self.state.outbox.clone(),
        )
        .with_secrets(self.state.secrets.clone())
    }
}

impl Module for Identity {
    fn name(&self) -> &'static str {
        "identity"
    }

    fn configure(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.state.clone());
        routes::configure(cfg);
    }

    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(coffer_events::readiness::store_and_bus(
            "identity",
            &self.state.store,
            self.state.bus.as_ref(),
        ))
    }

    fn spawn_workers(&self) -> Vec<tokio::task::JoinHandle<()>> {
        let keyring = Arc::clone(&self.state.keyring);
        let every = self.state.key_reload;
        let relay = tokio::spawn(Arc::clone(&self.state.relay).run());
        let reloader = tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tick.tick().await;
                if let Err(e) = keyring.reload().await {
                    tracing::warn!(error = %e, "could not reload signing keys");
                }
            }
        });
        vec![relay, reloader]
    }
}
