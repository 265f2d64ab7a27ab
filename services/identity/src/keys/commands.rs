//! Signing key use cases: making sure keys exist and are sealed at start, rereading them,
//! rotating to a new one, and publishing the set.

use coffer_auth::{Jwks, SigningKey};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::{Store, StoreError};
use zeroize::Zeroizing;

use super::domain::{self as key_policy, KeyRow, records, sealing};
use super::keyring::{Keyring, KeyringError};
use super::store as keys;

/// Makes sure a signing key exists (creating the first one), seals every stored key under
/// the current master key, and loads the set into `keyring`.
///
/// A signing key found in plaintext may have been copied (a backup, a readable file), so
/// if it is the one that signs, a new key replaces it; the old one keeps verifying until
/// its tokens have expired, as after any rotation.
pub async fn start(
    store: &Store,
    clock: &dyn Clock,
    keyring: &Keyring,
) -> Result<(), KeyringError> {
    let secrets = keyring.secrets();
    let rows = store.query(keys::all).await?;
    let exposed: Vec<&str> = rows
        .iter()
        .filter(|row| sealing::is_plaintext(row))
        .map(|row| row.kid.as_str())
        .collect();
    reseal(store, secrets, &rows).await?;
    match key_policy::active(&records(&rows)) {
        None => {
            rotate(store, clock, secrets).await?;
        }
        Some(active) if exposed.contains(&active.kid.as_str()) => {
            let kid = rotate(store, clock, secrets).await?;
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
    reload(store, clock, keyring).await
}

/// Seals again what `sealing::reseal_plan` says; a row changed meanwhile by another
/// replica is left to it.
async fn reseal(store: &Store, secrets: &Secrets, rows: &[KeyRow]) -> Result<(), KeyringError> {
    let plan = sealing::reseal_plan(rows, secrets)?;
    if plan.is_empty() {
        return Ok(());
    }
    let resealed = store.query(move |conn| keys::reseal(conn, &plan)).await?;
    tracing::info!(
        resealed,
        master_key = secrets.current_kid(),
        "signing keys sealed under the current master key"
    );
    Ok(())
}

/// Rereads the keys, so a rotation made elsewhere (another replica, the admin CLI) takes
/// effect here. Sealing is left to starts: a replica that sealed an exposed key here
/// would also have to replace it, and every replica would race to.
pub async fn reload(
    store: &Store,
    clock: &dyn Clock,
    keyring: &Keyring,
) -> Result<(), KeyringError> {
    let rows = store.query(keys::all).await?;
    keyring.install(&rows, clock.unix())
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
        private_key_pkcs8: sealing::seal(&kid, &der, secrets)?,
        created: clock.unix(),
        retired_at: None,
    };
    store.query(move |conn| keys::rotate_to(conn, &row)).await?;
    Ok(kid)
}

/// The keys verifiers should trust now.
pub(crate) fn published(keyring: &Keyring) -> Jwks {
    keyring.jwks()
}
