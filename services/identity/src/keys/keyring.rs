//! Identity's signing keys at run time: the one that signs, and the set it publishes.
//! What is stored is loaded by keys/commands.rs; this holds what was loaded.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use coffer_auth::{Jwks, SharedKeys, SigningError, SigningKey};
use coffer_secrets::Secrets;
use coffer_store::StoreError;

use super::domain::sealing::{self, SealingError};
use super::domain::{self as key_policy, KeyRow, records};

/// Identity's part in a process's [`SharedKeys`].
const SOURCE: &str = "identity";

#[derive(Debug, thiserror::Error)]
pub enum KeyringError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error(transparent)]
    Sealing(#[from] SealingError),
}

#[derive(Default)]
struct Loaded {
    parsed: HashMap<String, Arc<SigningKey>>,
    signer: Option<Arc<SigningKey>>,
    jwks: Jwks,
}

pub struct Keyring {
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
    pub fn new(secrets: Secrets, token_lifetime: i64, shared: SharedKeys) -> Self {
        Self {
            secrets,
            token_lifetime,
            shared,
            loaded: RwLock::default(),
        }
    }

    /// The master keys the stored signing keys are sealed with.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// Makes `rows` (every stored key) the keys in use at `now`: the active one signs, and
    /// every key whose tokens may still be alive is published. A key already parsed is
    /// kept, so a reload pays only for keys new to it.
    pub fn install(&self, rows: &[KeyRow], now: i64) -> Result<(), KeyringError> {
        let records = records(rows);
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

fn parse(row: &KeyRow, secrets: &Secrets) -> Result<SigningKey, KeyringError> {
    let der = sealing::open(row, secrets)?;
    Ok(SigningKey::from_pkcs8(row.kid.clone(), &der)?)
}
