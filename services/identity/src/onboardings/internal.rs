//! Identity's internal operations for a caller in the same process (`coffer dev`, where
//! onboarding runs beside identity): the same commands `POST /internal/*` runs, without
//! HTTP in between. It stands where those routes stand, so it answers as they do: with the
//! `ApiError` the command's error becomes.

use actix_web::web;
use coffer_http::ApiError;

use super::commands;
use super::domain::{CredentialsCheck, KnownUser, Onboarded, OnboardingRequest};
use crate::state::IdentityState;

#[derive(Clone)]
pub struct Internal {
    pub(crate) state: web::Data<IdentityState>,
}

impl Internal {
    pub async fn onboard(&self, request: OnboardingRequest) -> Result<Onboarded, ApiError> {
        Ok(commands::onboard(&self.state.writes(), request).await?.0)
    }

    pub async fn check_credentials(&self, check: CredentialsCheck) -> Result<KnownUser, ApiError> {
        Ok(commands::check_credentials(&self.state, check).await?)
    }

    pub async fn email_exists(&self, email: &str) -> Result<bool, ApiError> {
        Ok(commands::email_exists(&self.state, email).await?)
    }
}
