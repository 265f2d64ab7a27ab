use coffer_http::config::{ConfigError, Validate};
use coffer_secrets::SecretsSettings;
use serde::{Deserialize, Serialize};

/// `coffer-onboarding`'s own settings, beside the common ones of every service binary
/// (docs/configuration.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct OnboardingConfig {
    /// The master keys processes' tokens are sealed with (docs/decisions/secrets.md).
    pub secrets: SecretsSettings,
    pub onboarding: OnboardingSection,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct OnboardingSection {
    /// Seconds a process may wait to be executed or connected (1 hour to 90 days).
    pub process_ttl_secs: i64,
    /// E-mail checks one network may make a minute (1 to 10000).
    pub email_checks_per_minute: u32,
    /// `recaptcha` (Google's verify call with `recaptcha_secret`) or `test` (the token
    /// `test-ok` passes: never in production).
    pub captcha: String,
    pub recaptcha_secret: String,
    pub recaptcha_verify_url: String,
    /// Identity's address, and the platform client onboarding calls it as.
    pub identity_url: String,
    pub client_id: String,
    pub client_secret: String,
}

impl Default for OnboardingSection {
    fn default() -> Self {
        Self {
            process_ttl_secs: 7 * 86_400,
            email_checks_per_minute: 20,
            captcha: "recaptcha".into(),
            recaptcha_secret: String::new(),
            recaptcha_verify_url: crate::captcha::Recaptcha::VERIFY_URL.into(),
            identity_url: String::new(),
            client_id: String::new(),
            client_secret: String::new(),
        }
    }
}

impl Validate for OnboardingConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        let o = &self.onboarding;
        if !(3_600..=90 * 86_400).contains(&o.process_ttl_secs) {
            return Err(ConfigError::invalid(
                "onboarding.process_ttl_secs",
                "must be between 3600 and 7776000",
            ));
        }
        if !(1..=10_000).contains(&o.email_checks_per_minute) {
            return Err(ConfigError::invalid(
                "onboarding.email_checks_per_minute",
                "must be between 1 and 10000",
            ));
        }
        if !matches!(o.captcha.as_str(), "recaptcha" | "test") {
            return Err(ConfigError::invalid(
                "onboarding.captcha",
                "must be recaptcha or test",
            ));
        }
        self.secrets.keyring()?;
        Ok(())
    }

    /// Serving needs identity to call, the master keys tokens are sealed with and, with
    /// reCAPTCHA, its secret.
    fn validate_to_serve(&self) -> Result<(), ConfigError> {
        self.secrets.require()?;
        let o = &self.onboarding;
        for (name, value) in [
            ("onboarding.identity_url", &o.identity_url),
            ("onboarding.client_id", &o.client_id),
            ("onboarding.client_secret", &o.client_secret),
        ] {
            if value.trim().is_empty() {
                return Err(ConfigError::invalid(name, "is required to serve"));
            }
        }
        if o.captcha == "recaptcha" && o.recaptcha_secret.trim().is_empty() {
            return Err(ConfigError::invalid(
                "onboarding.recaptcha_secret",
                "is required with onboarding.captcha = recaptcha",
            ));
        }
        Ok(())
    }
}
