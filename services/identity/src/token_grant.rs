//! The client-credentials grant: check the client, load what it may touch, sign a token.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use coffer_auth::{Claims, SigningError};
use coffer_model::clock::Clock;
use coffer_store::{Store, StoreError};

use crate::domain::client_secret;
use crate::domain::grants::{ClientGrants, access_claims};
use crate::keyring::Keyring;
use crate::store::{accounts, clients};

#[derive(Debug, thiserror::Error)]
pub enum GrantError {
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
    recent: Mutex<(i64, HashMap<(String, String), (Claims, String)>)>,
}

impl TokenIssuer {
    pub fn new(
        store: Store,
        keyring: Arc<Keyring>,
        clock: Arc<dyn Clock>,
        issuer: String,
        lifetime_secs: i64,
    ) -> Self {
        Self {
            store,
            keyring,
            clock,
            issuer,
            lifetime_secs,
            recent: Mutex::new((0, HashMap::new())),
        }
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
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
        secret: String,
    ) -> Result<ClientGrants, GrantError> {
        self.store
            .run(move |conn| {
                let client = clients::find(conn, &client_id).map_err(StoreError::from)?;
                let stored = client
                    .as_ref()
                    .map_or(client_secret::UNKNOWN_CLIENT_DIGEST, |c| &c.secret_sha256);
                let secret_ok = client_secret::matches(&secret, stored);
                let client = match client {
                    Some(c) if secret_ok && c.disabled_at.is_none() => c,
                    _ => return Err(GrantError::InvalidClient),
                };
                let organisations =
                    clients::organisations(conn, &client_id).map_err(StoreError::from)?;
                let accounts = accounts::uuids_of_organisations(conn, &organisations)
                    .map_err(StoreError::from)?;
                Ok(ClientGrants {
                    client_id: client.client_id,
                    scope: client.scope,
                    organisations: organisations
                        .iter()
                        .filter_map(|u| u.parse().ok())
                        .collect(),
                    accounts: accounts.iter().filter_map(|u| u.parse().ok()).collect(),
                })
            })
            .await
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

impl From<GrantError> for coffer_error::ApiError {
    fn from(e: GrantError) -> Self {
        match e {
            GrantError::InvalidClient => {
                coffer_error::ApiError::unauthorized().with_oauth("invalid_client")
            }
            GrantError::Store(e) => e.into(),
            other => coffer_error::ApiError::internal(other),
        }
    }
}
