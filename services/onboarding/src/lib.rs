//! The onboarding service: partners' onboarding processes, their execution into
//! identity, and partner integrations (docs/partners.md).
//!
//! Every feature has the same rooms: `routes` (HTTP only), `commands` (the use cases),
//! `domain` (pure rules), `store` (queries) and `events`; the one route table is
//! `routes.rs`, the background loops are listed in `workers/`. The features:
//! configurations (operators make them), processes, and integrations. Identity is reached
//! through [`identity::IdentityPort`]; the e-mail check's captcha through
//! [`captcha::CaptchaVerifier`].

pub mod captcha;
pub mod config;
pub mod configurations;
mod error;
pub mod identity;
mod integrations;
mod migrations;
pub mod processes;
mod replica;
mod routes;
mod schema;
mod state;
mod workers;

use std::sync::Arc;

use actix_web::web;
use coffer_events::{Bus, EventWiring};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;

pub use error::OnboardingError;
pub use migrations::MIGRATIONS;
/// This service's part of the API description.
pub use routes::part as api_part;
pub use state::OnboardingSettings;
use state::{OnboardingState, RateLimit};

pub struct Onboarding {
    state: web::Data<OnboardingState>,
    /// The outbox's relay and the consumer of identity's events (replica.rs).
    events: EventWiring,
}

impl Onboarding {
    /// The store must be migrated with [`MIGRATIONS`]. Processes' tokens (and the answers
    /// that show them) are sealed with `secrets`; the start seals those stored before they
    /// were, or under a master key that is no longer current.
    pub async fn start(
        store: Store,
        clock: Arc<dyn Clock>,
        bus: Arc<dyn Bus>,
        identity: Arc<dyn identity::IdentityPort>,
        captcha: Arc<dyn captcha::CaptchaVerifier>,
        secrets: Secrets,
        settings: OnboardingSettings,
    ) -> Result<Self, OnboardingError> {
        processes::commands::seal_at_start(&store, &secrets).await?;
        let mut events = EventWiring::new(
            "onboarding",
            &store,
            &bus,
            &clock,
            &settings.event_prefix,
            settings.relay.clone(),
        );
        events.consume("replica", &["identity"], Arc::new(replica::Replica));
        let state = OnboardingState {
            email_checks: RateLimit::new(Arc::clone(&clock), settings.email_checks_per_minute),
            store,
            clock,
            outbox: events.outbox().clone(),
            identity,
            captcha,
            secrets,
            process_ttl_secs: settings.process_ttl_secs,
        };
        Ok(Self {
            state: web::Data::new(state),
            events,
        })
    }

    /// Operators' configurations go straight to this store (`coffer admin`).
    pub fn store(&self) -> &Store {
        &self.state.store
    }
}

coffer_service::module! {
    Onboarding: "onboarding",
    app_data: [state],
    workers: [events],
}
