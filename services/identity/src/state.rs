//! What identity's handlers, commands and workers share, and the settings it is built from.
//! It stands below every feature but keys/ (the keyring) and throttles/: a part that one
//! feature alone reads and that is built from that feature's own rooms (the token issuer,
//! the directory cache) is app data of its own, built in lib.rs, so the state never
//! imports the features that use it.

use std::sync::Arc;
use std::time::Duration;

use coffer_auth::SharedKeys;
use coffer_events::{Outbox, RelaySettings};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;

use serde::{Deserialize, Serialize};

use crate::keys::{Keyring, KeyringError, commands as keys};
use crate::throttles::failures::{FailureThrottle, ThrottleSettings};
use crate::throttles::sign_ins::{SignInThrottle, SignInThrottleSettings};
use crate::writes::Writes;

/// What identity needs from the process that hosts it.
#[derive(Clone)]
pub struct IdentitySettings {
    pub issuer: String,
    /// Prefix of event names (`<prefix>.event.identity...`).
    pub event_prefix: String,
    pub relay: RelaySettings,
    pub token_lifetime_secs: i64,
    /// How often signing keys are reread, so a rotation made elsewhere reaches this process.
    pub key_reload: Duration,
    /// How long a read of a client or an organisation may be served from memory; bounds
    /// how long a change made elsewhere (another replica, the admin CLI) takes to show.
    pub read_cache_ttl: Duration,
    /// When failed client authentications at the token endpoint are answered 429.
    pub failure_throttle: ThrottleSettings,
    /// Partners' single sign-on.
    pub sso: SsoSettings,
}

impl Default for IdentitySettings {
    fn default() -> Self {
        Self {
            issuer: "coffer".into(),
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            token_lifetime_secs: 3600,
            key_reload: Duration::from_secs(60),
            read_cache_ttl: Duration::from_secs(2),
            failure_throttle: ThrottleSettings::default(),
            sso: SsoSettings::default(),
        }
    }
}

/// The `sso.*` settings (docs/configuration.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SsoSettings {
    /// The issuer of ID tokens and the base of the discovery document's URLs: identity's
    /// public address as partners reach it, without a trailing slash. Empty: taken from
    /// each request's scheme and host, which suits `coffer dev` and tests only.
    pub issuer: String,
    /// How long an authorization code may wait to be exchanged.
    pub code_ttl_secs: i64,
    pub id_token_lifetime_secs: i64,
    /// How long a login page may stay open before its form must be sent again.
    pub form_ttl_secs: i64,
    pub sign_in_failures: SignInThrottleSettings,
}

impl Default for SsoSettings {
    fn default() -> Self {
        Self {
            issuer: String::new(),
            code_ttl_secs: 60,
            id_token_lifetime_secs: 300,
            form_ttl_secs: 1800,
            sign_in_failures: SignInThrottleSettings::default(),
        }
    }
}

pub(crate) struct IdentityState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub outbox: Outbox,
    pub key_reload: Duration,
    pub keyring: Arc<Keyring>,
    pub failures: FailureThrottle,
    /// The `iss` of access tokens (auth.issuer); ID tokens carry `sso.issuer`.
    pub access_issuer: String,
    pub sso: SsoSettings,
    /// Failed sign-ins on the login page.
    pub sign_ins: SignInThrottle,
    /// For the operator actions that make keys.
    pub secrets: Secrets,
}

impl IdentityState {
    /// Loads (or creates) the signing keys, sealed with `secrets`, and publishes them into
    /// `keys`. The store must be migrated already; `outbox` is the one of the service's
    /// event wiring (lib.rs).
    pub async fn start(
        store: Store,
        clock: Arc<dyn Clock>,
        keys: SharedKeys,
        outbox: Outbox,
        secrets: Secrets,
        settings: IdentitySettings,
    ) -> Result<Self, KeyringError> {
        let keyring = Arc::new(Keyring::new(
            secrets.clone(),
            settings.token_lifetime_secs,
            keys,
        ));
        keys::start(&store, clock.as_ref(), &keyring).await?;
        let access_issuer = settings.issuer;
        let sign_ins = SignInThrottle::new(Arc::clone(&clock), settings.sso.sign_in_failures);
        let failures = FailureThrottle::new(Arc::clone(&clock), settings.failure_throttle);
        Ok(Self {
            store,
            clock,
            outbox,
            key_reload: settings.key_reload,
            keyring,
            failures,
            access_issuer,
            sso: settings.sso,
            sign_ins,
            secrets,
        })
    }

    /// What a command that changes data needs; its events go out through this process's
    /// outbox, so the relay publishes them at once.
    pub fn writes(&self) -> Writes {
        Writes {
            store: self.store.clone(),
            clock: Arc::clone(&self.clock),
            outbox: self.outbox.clone(),
        }
    }
}
