//! Onboarding's way into identity when both run in this process: identity's internal
//! operations called directly, with the same requests and answers as over HTTP.

use std::net::IpAddr;

use coffer_http::ApiError;
use coffer_identity::onboardings::domain::{CredentialsCheck, OnboardingRequest};
use coffer_identity::onboardings::internal::Internal;
use coffer_onboarding::identity::{Answer, IdentityPort, KnownUser, Onboarded};
use serde_json::Value;

pub struct InProcessIdentity(pub Internal);

impl IdentityPort for InProcessIdentity {
    fn onboard(&self, request: Value) -> Answer<'_, Onboarded> {
        Box::pin(async move {
            let request: OnboardingRequest = serde_json::from_value(request)
                .map_err(|e| ApiError::bad_request(format!("onboarding request: {e}")))?;
            let done = self.0.onboard(request).await?;
            Ok(Onboarded {
                organisation_uuid: done.organisation_uuid,
                user_uuid: done.user_uuid,
            })
        })
    }

    fn check_credentials(
        &self,
        email: String,
        password: String,
        source: IpAddr,
    ) -> Answer<'_, KnownUser> {
        Box::pin(async move {
            let known = self
                .0
                .check_credentials(CredentialsCheck {
                    email,
                    password,
                    source,
                })
                .await?;
            Ok(KnownUser {
                user_uuid: known.user_uuid,
                organisation_uuid: known.organisation_uuid,
            })
        })
    }

    fn email_exists(&self, email: String) -> Answer<'_, bool> {
        Box::pin(async move { self.0.email_exists(&email).await })
    }
}
