//! `coffer-onboarding`: the onboarding service on its own (distributed mode). It verifies
//! tokens against identity's JWKS, calls identity's internal operations as a platform
//! client, and learns organisations and accounts from identity's events.

use std::sync::Arc;

use coffer_http::Module;
use coffer_onboarding::captcha::{CaptchaVerifier, Recaptcha, TestCaptcha};
use coffer_onboarding::config::OnboardingConfig;
use coffer_onboarding::identity::HttpIdentity;
use coffer_onboarding::{MIGRATIONS, Onboarding, OnboardingSettings};
use coffer_service::{Built, Started};

fn main() -> std::process::ExitCode {
    coffer_service::main(
        "coffer-onboarding",
        MIGRATIONS,
        |s: Started<OnboardingConfig>| async move {
            s.ensure_topics(&["onboarding", "identity"]).await?;
            let verifier = s.verifier(None)?;
            let secrets = s.config.secrets.require()?;
            let o = &s.config.onboarding;
            let captcha: Arc<dyn CaptchaVerifier> = if o.captcha == "test" {
                tracing::warn!("onboarding.captcha = test: the captcha token test-ok passes");
                Arc::new(TestCaptcha)
            } else {
                Arc::new(Recaptcha::new(
                    o.recaptcha_secret.clone(),
                    o.recaptcha_verify_url.clone(),
                ))
            };
            let identity = Arc::new(HttpIdentity::new(
                o.identity_url.clone(),
                o.client_id.clone(),
                o.client_secret.clone(),
            ));
            let settings = OnboardingSettings {
                event_prefix: s.common.events.prefix.clone(),
                relay: s.common.relay_settings(),
                process_ttl_secs: o.process_ttl_secs,
                email_checks_per_minute: o.email_checks_per_minute,
            };
            let onboarding = Onboarding::start(
                s.store.clone(),
                Arc::clone(&s.clock),
                s.bus.clone(),
                identity,
                captcha,
                secrets,
                settings,
            )
            .await?;
            Ok(Built {
                modules: vec![Arc::new(onboarding) as Arc<dyn Module>],
                verifier,
            })
        },
    )
}
