//! The captcha that guards the e-mail existence check (SPEC.md: `recaptcha_token`). In
//! production Google's reCAPTCHA verify call decides; with `onboarding.captcha = test`
//! (`coffer dev`, tests) the token `test-ok` passes and every other one fails.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::time::Duration;

pub type Verdict<'a> = Pin<Box<dyn Future<Output = Result<bool, String>> + Send + 'a>>;

pub trait CaptchaVerifier: Send + Sync {
    fn verify(&self, token: String, remote_ip: IpAddr) -> Verdict<'_>;
}

/// Accepts `test-ok` only. Never for production: `coffer dev` says so when it starts.
pub struct TestCaptcha;

pub const TEST_TOKEN: &str = "test-ok";

impl CaptchaVerifier for TestCaptcha {
    fn verify(&self, token: String, _remote_ip: IpAddr) -> Verdict<'_> {
        Box::pin(async move { Ok(token == TEST_TOKEN) })
    }
}

/// Google reCAPTCHA's siteverify.
pub struct Recaptcha {
    secret: String,
    verify_url: String,
    http: reqwest::Client,
}

impl Recaptcha {
    pub const VERIFY_URL: &str = "https://www.google.com/recaptcha/api/siteverify";

    pub fn new(secret: String, verify_url: String) -> Self {
        Self {
            secret,
            verify_url,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(5))
                .build()
                .unwrap_or_default(),
        }
    }
}

#[derive(serde::Deserialize)]
struct SiteVerify {
    success: bool,
}

impl CaptchaVerifier for Recaptcha {
    fn verify(&self, token: String, remote_ip: IpAddr) -> Verdict<'_> {
        Box::pin(async move {
            let answer: SiteVerify = self
                .http
                .post(&self.verify_url)
                .form(&[
                    ("secret", self.secret.as_str()),
                    ("response", token.as_str()),
                    ("remoteip", &remote_ip.to_string()),
                ])
                .send()
                .await
                .map_err(|e| e.to_string())?
                .json()
                .await
                .map_err(|e| e.to_string())?;
            Ok(answer.success)
        })
    }
}
