use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::DecodingKey;
use tokio::sync::Mutex;

use crate::Jwks;

/// Where a verifier finds the public key for a token's `kid`.
#[derive(Clone, Debug)]
pub enum KeySource {
    /// Keys handed over in-process: identity's own, and every service in standalone `coffer`.
    Shared(SharedKeys),
    /// Keys fetched from identity's JWKS over HTTP (distributed mode).
    Remote(Arc<RemoteJwks>),
}

impl KeySource {
    pub async fn key(&self, kid: &str) -> Option<Arc<DecodingKey>> {
        match self {
            KeySource::Shared(keys) => keys.get(kid),
            KeySource::Remote(remote) => remote.key(kid).await,
        }
    }
}

type KeyMap = HashMap<String, Arc<DecodingKey>>;

fn decode_all(jwks: &Jwks) -> KeyMap {
    jwks.keys
        .iter()
        .filter(|k| k.kty == "RSA" && k.alg.as_deref().is_none_or(|a| a == "RS256"))
        .filter_map(|k| {
            let key = DecodingKey::from_rsa_components(&k.n, &k.e).ok()?;
            Some((k.kid.clone(), Arc::new(key)))
        })
        .collect()
}

/// A key set shared between the signers and the verifiers of one process. Each publisher
/// (identity, or a test harness) owns its part, named by `source`.
#[derive(Clone, Default)]
pub struct SharedKeys {
    inner: Arc<RwLock<HashMap<String, KeyMap>>>,
}

impl std::fmt::Debug for SharedKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedKeys").finish_non_exhaustive()
    }
}

impl SharedKeys {
    /// Replaces `source`'s whole set, so a key it no longer publishes stops verifying.
    pub fn replace(&self, source: &str, jwks: &Jwks) {
        let keys = decode_all(jwks);
        if let Ok(mut guard) = self.inner.write() {
            guard.insert(source.to_owned(), keys);
        }
    }

    pub fn get(&self, kid: &str) -> Option<Arc<DecodingKey>> {
        self.inner
            .read()
            .ok()?
            .values()
            .find_map(|keys| keys.get(kid).cloned())
    }
}

/// Identity's JWKS fetched over HTTP and cached. An unknown `kid` (a key rotated in since
/// the last fetch) triggers a refetch, at most once per `min_refetch`, so a flood of
/// forged kids cannot turn into a flood of requests to identity.
pub struct RemoteJwks {
    url: String,
    client: reqwest::Client,
    ttl: Duration,
    min_refetch: Duration,
    cache: RwLock<(KeyMap, Option<Instant>)>,
    fetching: Mutex<()>,
}

impl std::fmt::Debug for RemoteJwks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteJwks")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl RemoteJwks {
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(5))
                .build()
                .unwrap_or_default(),
            ttl: Duration::from_secs(300),
            min_refetch: Duration::from_secs(10),
            cache: RwLock::new((KeyMap::new(), None)),
            fetching: Mutex::new(()),
        }
    }

    fn cached(&self, kid: &str) -> (Option<Arc<DecodingKey>>, Option<Instant>) {
        match self.cache.read() {
            Ok(guard) => (guard.0.get(kid).cloned(), guard.1),
            Err(_) => (None, None),
        }
    }

    pub async fn key(&self, kid: &str) -> Option<Arc<DecodingKey>> {
        let (key, fetched) = self.cached(kid);
        let age = fetched.map(|t| t.elapsed());
        match (key, age) {
            (Some(key), Some(age)) if age < self.ttl => return Some(key),
            (None, Some(age)) if age < self.min_refetch => return None,
            _ => {}
        }
        let _one_at_a_time = self.fetching.lock().await;
        // Another task may have refreshed while this one waited.
        let (key, fetched) = self.cached(kid);
        if fetched.is_some_and(|t| t.elapsed() < self.min_refetch) {
            return key;
        }
        match self.fetch().await {
            Ok(keys) => {
                let found = keys.get(kid).cloned();
                if let Ok(mut guard) = self.cache.write() {
                    *guard = (keys, Some(Instant::now()));
                }
                found
            }
            Err(e) => {
                tracing::warn!(url = %self.url, error = %e, "could not fetch the JWKS");
                // Keep verifying with the keys already known while identity is unreachable.
                key
            }
        }
    }

    async fn fetch(&self) -> Result<KeyMap, reqwest::Error> {
        let jwks: Jwks = self
            .client
            .get(&self.url)
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        Ok(decode_all(&jwks))
    }
}
