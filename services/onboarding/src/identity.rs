//! Onboarding's calls into identity: making an onboarded organisation, checking a user's
//! credentials, and whether an address has a user. Distributed, they are identity's
//! `/internal/*` operations over HTTP with a platform client's token ([`HttpIdentity`]);
//! `coffer dev` hands identity's own commands over in the same process.
//!
//! Every call is safe to repeat: an onboarding names the uuids it wants made, so asking
//! again after a timeout answers what the first call made.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use coffer_http::ApiError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

pub type Answer<'a, T> = Pin<Box<dyn Future<Output = Result<T, ApiError>> + Send + 'a>>;

/// What identity answers an onboarding with.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Onboarded {
    pub organisation_uuid: Uuid,
    pub user_uuid: Uuid,
}

/// Who a user's credentials belong to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct KnownUser {
    pub user_uuid: Uuid,
    pub organisation_uuid: Uuid,
}

pub trait IdentityPort: Send + Sync {
    /// `request` in the shape of identity's `POST /internal/onboardings`.
    fn onboard(&self, request: Value) -> Answer<'_, Onboarded>;
    /// 401 when they do not match, 429 while `source` must wait.
    fn check_credentials(
        &self,
        email: String,
        password: String,
        source: IpAddr,
    ) -> Answer<'_, KnownUser>;
    fn email_exists(&self, email: String) -> Answer<'_, bool>;
}

/// Identity over HTTP, as a platform client.
pub struct HttpIdentity {
    base_url: String,
    client_id: String,
    client_secret: String,
    http: reqwest::Client,
    token: Mutex<Option<(String, Instant)>>,
}

#[derive(Deserialize)]
struct Token {
    access_token: String,
    expires_in: u64,
}

#[derive(Deserialize)]
struct Exists {
    exists: bool,
}

fn unreachable(e: impl std::fmt::Display) -> ApiError {
    tracing::warn!(error = %e, "identity could not be reached");
    ApiError::unavailable("identity cannot be reached just now; try again")
}

impl HttpIdentity {
    pub fn new(base_url: String, client_id: String, client_secret: String) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            client_id,
            client_secret,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap_or_default(),
            token: Mutex::new(None),
        }
    }

    async fn bearer(&self) -> Result<String, ApiError> {
        if let Ok(held) = self.token.lock()
            && let Some((token, until)) = held.as_ref()
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let res = self
            .http
            .post(format!("{}/oauth2/token", self.base_url))
            .form(&[
                ("grant_type", "client_credentials"),
                ("client_id", self.client_id.as_str()),
                ("client_secret", self.client_secret.as_str()),
            ])
            .send()
            .await
            .map_err(unreachable)?;
        if !res.status().is_success() {
            return Err(unreachable(format!(
                "token endpoint answered {}",
                res.status()
            )));
        }
        let token: Token = res.json().await.map_err(unreachable)?;
        // Renewed a minute early, so no call goes out with a token about to expire.
        let until = Instant::now() + Duration::from_secs(token.expires_in.saturating_sub(60));
        if let Ok(mut held) = self.token.lock() {
            *held = Some((token.access_token.clone(), until));
        }
        Ok(token.access_token)
    }

    /// Identity's answer: its body when it succeeded, else its refusal passed on as is
    /// (a 400 naming the faults, a 401, a 409, a 429), or 503 for anything else.
    async fn send<T: serde::de::DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<T, ApiError> {
        let res = request
            .bearer_auth(self.bearer().await?)
            .send()
            .await
            .map_err(unreachable)?;
        let status = res.status();
        if status.is_success() {
            return res.json().await.map_err(unreachable);
        }
        let retry_after = res
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let body: Value = res.json().await.unwrap_or(Value::Null);
        Err(refusal(status.as_u16(), &body, retry_after))
    }
}

/// Identity's refusal as onboarding answers it.
fn refusal(status: u16, body: &Value, retry_after: Option<u64>) -> ApiError {
    let message = body["errors"]
        .as_array()
        .and_then(|e| e.first())
        .and_then(|e| e["message"].as_str())
        .or_else(|| body["message"].as_str())
        .unwrap_or("refused")
        .to_owned();
    match status {
        400 => {
            let items = body["errors"]
                .as_array()
                .map(|errors| {
                    errors
                        .iter()
                        .map(|e| {
                            coffer_model::validation::FieldError::new(
                                e["code"].as_str().unwrap_or("error.validation.not_valid"),
                                e["property"].as_str().unwrap_or(""),
                                e["message"].as_str().unwrap_or(""),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            ApiError::validation(items)
        }
        401 => ApiError::unauthorized(),
        409 => ApiError::conflict(message),
        429 => ApiError::too_many_requests(message, retry_after.unwrap_or(1)),
        _ => unreachable(format!("identity answered {status}: {message}")),
    }
}

impl IdentityPort for HttpIdentity {
    fn onboard(&self, request: Value) -> Answer<'_, Onboarded> {
        Box::pin(async move {
            self.send(
                self.http
                    .post(format!("{}/internal/onboardings", self.base_url))
                    .json(&request),
            )
            .await
        })
    }

    fn check_credentials(
        &self,
        email: String,
        password: String,
        source: IpAddr,
    ) -> Answer<'_, KnownUser> {
        Box::pin(async move {
            self.send(
                self.http
                    .post(format!("{}/internal/user-credentials", self.base_url))
                    .json(&serde_json::json!({
                        "email": email, "password": password, "source": source,
                    })),
            )
            .await
        })
    }

    fn email_exists(&self, email: String) -> Answer<'_, bool> {
        Box::pin(async move {
            let mut url = reqwest::Url::parse(&format!("{}/internal/user-emails/", self.base_url))
                .map_err(unreachable)?;
            url.path_segments_mut()
                .map_err(|()| unreachable("identity's URL cannot take a path"))?
                .pop_if_empty()
                .push(&email);
            let found: Exists = self.send(self.http.get(url)).await?;
            Ok(found.exists)
        })
    }
}
