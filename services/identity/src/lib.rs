//! The identity service: API clients and the OAuth 2.0 token endpoint, signing keys and
//! their JWKS, the directory of organisations and accounts, and partners' single sign-on
//! (users, and identity as an OpenID Connect provider).
//!
//! Each feature folder has the same rooms (STYLE.md, "The rooms of a service"); `routes.rs`
//! is the one route table, `workers/` lists the background loops, and `admin` is the
//! operators' way into the features' commands.

pub mod accounts;
mod address;
pub mod admin;
pub mod attachments;
pub mod clients;
pub mod config;
mod directory;
mod error;
pub mod keys;
mod migrations;
pub mod onboardings;
pub mod organisations;
pub mod partners;
mod root;
mod routes;
mod schema;
pub mod sso;
mod state;
mod tenancy;
mod throttles;
pub mod tokens;
pub mod users;
mod workers;
mod writes;

use std::sync::Arc;

use actix_web::web;
use coffer_auth::SharedKeys;
use coffer_events::{Bus, EventWiring};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;

pub use crate::migrations::MIGRATIONS;
pub use crate::state::IdentitySettings;
/// This service's part of the API description.
pub use routes::part as api_part;

use crate::admin::Admin;
use crate::keys::KeyringError;
use crate::organisations::cache::DirectoryCache;
use crate::state::IdentityState;
use crate::tokens::issuer::TokenIssuer;

/// The inputs operators and other crates build, at the paths they have always used.
pub mod domain {
    pub mod directory {
        pub use crate::accounts::domain::BillingInput;
        pub use crate::address::AddressInput;
        pub use crate::organisations::domain::OrganisationInput;
    }
}

/// The identity service as an HTTP module.
pub struct Identity {
    state: web::Data<IdentityState>,
    /// The token endpoint's grants (tokens/), and recently read organisations
    /// (organisations/): each read by one feature, so held beside the state, not in it.
    issuer: web::Data<TokenIssuer>,
    directory: web::Data<DirectoryCache>,
    /// The outbox's relay, and the consumer of onboarding's partner integrations.
    events: EventWiring,
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
        let mut events = EventWiring::new(
            "identity",
            &store,
            &bus,
            &clock,
            &settings.event_prefix,
            settings.relay.clone(),
        );
        coffer_partners::wire(&mut events);
        let outbox = events.outbox().clone();
        let (lifetime_secs, read_cache_ttl) =
            (settings.token_lifetime_secs, settings.read_cache_ttl);
        let state = IdentityState::start(store, clock, keys, outbox, secrets, settings).await?;
        let issuer = TokenIssuer::new(
            state.store.clone(),
            Arc::clone(&state.keyring),
            Arc::clone(&state.clock),
            state.access_issuer.clone(),
            lifetime_secs,
            read_cache_ttl,
        );
        Ok(Self {
            state: web::Data::new(state),
            issuer: web::Data::new(issuer),
            directory: web::Data::new(DirectoryCache::new(read_cache_ttl)),
            events,
        })
    }

    /// Identity's internal operations, for a service in the same process.
    pub fn internal(&self) -> onboardings::internal::Internal {
        onboardings::internal::Internal {
            state: self.state.clone(),
        }
    }

    /// Operator actions in this process, sharing the outbox so their events go out at once.
    pub fn admin(&self) -> Admin {
        let w = self.state.writes();
        Admin::new(w.store, w.clock, w.outbox).with_secrets(self.state.secrets.clone())
    }
}

coffer_service::module! {
    Identity: "identity",
    app_data: [state, issuer, directory],
    partners: coffer_partners::app_data,
    // The keyring is app data of its own: the JWKS route reads it without the state.
    configure: |identity, cfg| {
        cfg.app_data(web::Data::from(Arc::clone(&identity.state.keyring)));
    },
    workers: [state, events],
}
