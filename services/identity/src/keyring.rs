//! Identity's signing keys at run time: the one that signs, and the set it publishes.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use coffer_auth::{Jwks, SharedKeys, SigningError, SigningKey};
use coffer_model::clock::Clock;
use coffer_secrets::{OpenError, SealError, Secrets};
use coffer_store::{Store, StoreError};
use zeroize::Zeroizing;

use crate::domain::key_policy::{self, KeyRecord};
use crate::sealed_keys;
use crate::store::{keys, rows::KeyRow};

/// Identity's part in a process's [`SharedKeys`].
const SOURCE: &str = "identity";

#[derive(Debug, thiserror::Error)]
pub enum KeyringError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error("stored signing key {kid} is not valid base64")]
    Encoding { kid: String },
    #[error("stored signing key {kid} does not open ({source}); check secrets.keys")]
    Open { kid: String, source: OpenError },
    #[error("could not seal signing key {kid}: {source}")]
    Seal { kid: String, source: SealError },
}

#[derive(Default)]
struct Loaded {
    parsed: HashMap<String, Arc<SigningKey>>,
    signer: Option<Arc<SigningKey>>,
    jwks: Jwks,
}

pub struct Keyring {
    store: Store,
    clock: Arc<dyn Clock>,
    secrets: Secrets,
    token_lifetime: i64,
    shared: SharedKeys,
    loaded: RwLock<Loaded>,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyring").finish_non_exhaustive()
    }
}

impl Keyring {
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        secrets: Secrets,
        token_lifetime: i64,
        shared: SharedKeys,
    ) -> Self {
        Self {
            store,
            clock,
            secrets,
            token_lifetime,
            shared,
            loaded: RwLock::default(),
        }
    }

    /// Makes sure a signing key exists (creating the first one), seals every stored key
    /// under the current master key, and loads the set.
    ///
    /// A signing key found in plaintext may have been copied (a backup, a readable file),
    /// so if it is the one that signs, a new key replaces it; the old one keeps verifying
    /// until its tokens have expired, as after any rotation.
    pub async fn start(&self) -> Result<(), KeyringError> {
        let rows = self.store.query(keys::all).await?;
        let exposed: Vec<&str> = rows
            .iter()
            .filter(|row| sealed_keys::is_plaintext(row))
            .map(|row| row.kid.as_str())
            .collect();
        self.reseal(&rows).await?;
        match key_policy::active(&records(&rows)) {
            None => {
                rotate(&self.store, self.clock.as_ref(), &self.secrets).await?;
            }
            Some(active) if exposed.contains(&active.kid.as_str()) => {
                let kid = rotate(&self.store, self.clock.as_ref(), &self.secrets).await?;
                tracing::warn!(
                    sealed = exposed.len(),
                    retired = %active.kid,
                    signing = %kid,
                    "signing keys were stored in plaintext: sealed them, and a new key signs; \
                     backups taken before now still hold the retired keys"
                );
            }
            Some(_) => {}
        }
        self.reload().await
    }

    /// Seals again what `sealed_keys::reseal_plan` says; a row changed meanwhile by another
    /// replica is left to it.
    async fn reseal(&self, rows: &[KeyRow]) -> Result<(), KeyringError> {
        let plan = sealed_keys::reseal_plan(rows, &self.secrets)?;
        if plan.is_empty() {
            return Ok(());
        }
        let resealed = self
            .store
            .query(move |conn| keys::reseal(conn, &plan))
            .await?;
        tracing::info!(
            resealed,
            master_key = self.secrets.current_kid(),
            "signing keys sealed under the current master key"
        );
        Ok(())
    }

    /// Rereads the keys, so a rotation made elsewhere (another replica, the admin CLI)
    /// takes effect here. Sealing is left to starts: a replica that sealed an exposed key
    /// here would also have to replace it, and every replica would race to.
    pub async fn reload(&self) -> Result<(), KeyringError> {
        let rows = self.store.query(keys::all).await?;
        let records = records(&rows);
        let now = self.clock.unix();
        let published: Vec<String> = key_policy::published(&records, now, self.token_lifetime)
            .into_iter()
            .map(|k| k.kid.clone())
            .collect();
        let active = key_policy::active(&records).map(|k| k.kid.clone());

        let known = self
            .loaded
            .read()
            .map(|l| l.parsed.clone())
            .unwrap_or_default();
        let mut parsed = HashMap::new();
        for row in rows.iter().filter(|r| published.contains(&r.kid)) {
            let key = match known.get(&row.kid) {
                Some(key) => Arc::clone(key),
                None => Arc::new(parse(row, &self.secrets)?),
            };
            parsed.insert(row.kid.clone(), key);
        }
        let jwks = Jwks {
            keys: published
                .iter()
                .filter_map(|kid| parsed.get(kid))
                .map(|k| k.jwk().clone())
                .collect(),
        };
        let signer = active.and_then(|kid| parsed.get(&kid).cloned());
        self.shared.replace(SOURCE, &jwks);
        if let Ok(mut loaded) = self.loaded.write() {
            *loaded = Loaded {
                parsed,
                signer,
                jwks,
            };
        }
        Ok(())
    }

    pub fn signer(&self) -> Option<Arc<SigningKey>> {
        self.loaded.read().ok()?.signer.clone()
    }

    pub fn jwks(&self) -> Jwks {
        self.loaded
            .read()
            .map(|l| l.jwks.clone())
            .unwrap_or_default()
    }
}

fn records(rows: &[KeyRow]) -> Vec<KeyRecord> {
    rows.iter()
        .map(|r| KeyRecord {
            kid: r.kid.clone(),
            created: r.created,
            retired_at: r.retired_at,
        })
        .collect()
}

fn parse(row: &KeyRow, secrets: &Secrets) -> Result<SigningKey, KeyringError> {
    let der = sealed_keys::open(row, secrets)?;
    Ok(SigningKey::from_pkcs8(row.kid.clone(), &der)?)
}

/// Creates a new signing key, sealed, and retires the current one, which keeps verifying
/// until its tokens have expired. Returns the new key's id.
pub async fn rotate(
    store: &Store,
    clock: &dyn Clock,
    secrets: &Secrets,
) -> Result<String, KeyringError> {
    let kid = uuid::Uuid::new_v4().simple().to_string();
    let key = tokio::task::spawn_blocking({
        let kid = kid.clone();
        move || SigningKey::generate(kid)
    })
    .await
    .map_err(|_| KeyringError::Store(StoreError::Cancelled))??;
    let der = Zeroizing::new(key.to_pkcs8()?);
    let row = KeyRow {
        kid: kid.clone(),
        private_key_pkcs8: sealed_keys::seal(&kid, &der, secrets)?,
        created: clock.unix(),
        retired_at: None,
    };
    store.query(move |conn| keys::rotate_to(conn, &row)).await?;
    Ok(kid)
}
