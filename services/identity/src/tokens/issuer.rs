//! The client-credentials grant: check the client, load what it may touch, sign a token.
//! Clients and recently signed tokens are kept in memory, which is why this is an object
//! the service state holds rather than a plain command.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use coffer_auth::{Claims, SigningError};
use coffer_model::clock::Clock;
use coffer_store::{Store, StoreError, TtlCache};

use super::domain::{ClientGrants, access_claims};
use super::store::{ClientRecord, client_record};
use crate::clients::domain::secret;
use crate::error::CommandError;
use crate::keys::Keyring;
use crate::throttles::failures::ClientRefused;

/// Tokens signed in the current second (the `i64`), by client id and key id.
type RecentTokens = (i64, HashMap<(String, String), (Claims, String)>);

#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    /// Counted by the command that asked (tokens/commands.rs), which may then throttle.
    #[error("unknown client, wrong secret or disabled client")]
    InvalidClient,
    #[error("no signing key is loaded")]
    NoSigningKey,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Signing(#[from] SigningError),
}

#[derive(Debug, Clone)]
pub struct IssuedToken {
    pub access_token: String,
    pub expires_in: i64,
}

/// Signs access tokens. A token asked for again within the same second by the same client,
/// with the same grants, is byte for byte the token already signed (claims carry whole
/// seconds and no nonce), so it is handed out again instead of paying for another RSA
/// signature.
pub struct TokenIssuer {
    store: Store,
    keyring: Arc<Keyring>,
    clock: Arc<dyn Clock>,
    issuer: String,
    lifetime_secs: i64,
    recent: Mutex<RecentTokens>,
    /// Clients read within the last `client_cache_ttl`: a disabled client or a changed grant
    /// takes effect within that time on every replica.
    clients: TtlCache<String, ClientRecord>,
}

impl TokenIssuer {
    pub fn new(
        store: Store,
        keyring: Arc<Keyring>,
        clock: Arc<dyn Clock>,
        issuer: String,
        lifetime_secs: i64,
        client_cache_ttl: std::time::Duration,
    ) -> Self {
        Self {
            store,
            keyring,
            clock,
            issuer,
            lifetime_secs,
            recent: Mutex::new((0, HashMap::new())),
            clients: TtlCache::new(10_000, client_cache_ttl),
        }
    }

    pub async fn client_credentials(
        &self,
        client_id: &str,
        secret: &str,
    ) -> Result<IssuedToken, GrantError> {
        let grants = self
            .load_grants(client_id.to_owned(), secret.to_owned())
            .await?;
        let signer = self.keyring.signer().ok_or(GrantError::NoSigningKey)?;
        let claims = access_claims(&grants, &self.issuer, self.clock.unix(), self.lifetime_secs);
        let key = (claims.client_id.clone(), signer.kid().to_owned());
        if let Some(token) = self.recently_signed(&key, &claims) {
            return Ok(IssuedToken {
                access_token: token,
                expires_in: self.lifetime_secs,
            });
        }
        let token = signer.sign(&claims)?;
        self.remember(key, claims, token.clone());
        Ok(IssuedToken {
            access_token: token,
            expires_in: self.lifetime_secs,
        })
    }

    async fn load_grants(
        &self,
        client_id: String,
        given: String,
    ) -> Result<ClientGrants, GrantError> {
        let record = match self.clients.get(&client_id) {
            Some(record) => Some(record),
            None => {
                let id = client_id.clone();
                let record = self
                    .store
                    .query(move |conn| client_record(conn, &id))
                    .await?;
                if let Some(record) = &record {
                    self.clients.insert(client_id, record.clone());
                }
                record
            }
        };
        let stored = record
            .as_ref()
            .map_or(secret::UNKNOWN_CLIENT_DIGEST, |r| &r.row.secret_sha256);
        let secret_ok = secret::matches(&given, stored);
        match record {
            Some(r) if secret_ok && r.row.disabled_at.is_none() => Ok(ClientGrants {
                client_id: r.row.client_id,
                scope: r.row.scope,
                organisations: r
                    .organisations
                    .iter()
                    .filter_map(|u| u.parse().ok())
                    .collect(),
                accounts: r.accounts.iter().filter_map(|u| u.parse().ok()).collect(),
                partner: r.partner.as_deref().and_then(|u| u.parse().ok()),
            }),
            _ => Err(GrantError::InvalidClient),
        }
    }

    fn recently_signed(&self, key: &(String, String), claims: &Claims) -> Option<String> {
        let recent = self.recent.lock().ok()?;
        match recent.1.get(key) {
            Some((signed, token)) if recent.0 == claims.iat && signed == claims => {
                Some(token.clone())
            }
            _ => None,
        }
    }

    fn remember(&self, key: (String, String), claims: Claims, token: String) {
        if let Ok(mut recent) = self.recent.lock() {
            // Only the current second is worth keeping; this also bounds the memory used.
            if recent.0 != claims.iat {
                *recent = (claims.iat, HashMap::new());
            }
            recent.1.insert(key, (claims, token));
        }
    }
}

/// The grant's failures as the service's: without a key the token endpoint answers a bare
/// 500 (single sign-on, which can wait for one, answers 503).
impl From<GrantError> for CommandError {
    fn from(e: GrantError) -> Self {
        match e {
            GrantError::InvalidClient => CommandError::ClientRefused(ClientRefused::Invalid),
            GrantError::Store(e) => CommandError::from(e),
            other => CommandError::internal(other),
        }
    }
}
