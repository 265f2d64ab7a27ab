//! Setting a connector account: made on first use of its name, its keys replaced after.
//! The keys are sealed before the transaction, and the row and its change log are written
//! in one, so no key is ever kept without the change that names it.

use coffer_secrets::Secrets;
use coffer_store::Store;
use serde::Serialize;

use super::domain::{self, Change, Setting};
use super::store::{self, ChangeRow, ConnectorAccountRow, context};
use crate::error::PaymentsError;

/// What `coffer admin connector-account set` prints: never a secret, only the key's hint.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectorAccountView {
    pub uuid: String,
    pub account_uuid: String,
    pub name: String,
    pub provider: &'static str,
    pub mode: &'static str,
    pub secret_key_hint: String,
    /// Public by design: the payment page hands it to the provider's script.
    pub publishable_key: Option<String>,
    /// How many webhook secrets verify now: 0, 1, or 2 during a rotation.
    pub webhook_secrets: usize,
    /// The changes this call made, in the change log's words.
    pub changes: Vec<&'static str>,
    pub created: i64,
    pub updated: i64,
}

/// Sets the connector account `setting.name` of `setting.account_uuid`, as `actor`.
pub async fn set(
    store: &Store,
    secrets: &Secrets,
    now: i64,
    setting: Setting,
    actor: &str,
) -> Result<ConnectorAccountView, PaymentsError> {
    let checked = domain::check(&setting).map_err(PaymentsError::invalid_all)?;
    let (account, name) = (setting.account_uuid.clone(), setting.name.clone());
    let existing = store
        .query(move |db| store::find(db, &account, &name))
        .await?;
    let uuid = existing
        .as_ref()
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), |row| row.uuid.clone());
    let seal = |column: &str, value: &str| {
        secrets
            .seal(&context(column, &uuid), value.as_bytes())
            .map_err(PaymentsError::internal)
    };
    let sealed_key = setting
        .secret_key
        .as_deref()
        .map(|key| Ok::<_, PaymentsError>((seal("secret_key", key)?, domain::hint(key))))
        .transpose()?;
    let sealed_webhook = setting
        .webhook_secret
        .as_deref()
        .map(|secret| seal("webhook_secret", secret))
        .transpose()?;

    let was = existing.clone();
    let mut changes = Vec::new();
    let row = match existing {
        None => {
            let Some((secret_key, hint)) = sealed_key else {
                return Err(PaymentsError::invalid(
                    "secret_key",
                    "a new connector account needs its secret key",
                ));
            };
            changes.push(Change::Created);
            if sealed_webhook.is_some() {
                changes.push(Change::WebhookSecretSet);
            }
            if setting.publishable_key.is_some() {
                changes.push(Change::PublishableKeySet);
            }
            ConnectorAccountRow {
                uuid: uuid.clone(),
                account_uuid: setting.account_uuid.clone(),
                name: setting.name.clone(),
                provider: checked.provider,
                mode: checked.mode,
                secret_key,
                secret_key_hint: hint,
                webhook_secret: sealed_webhook,
                previous_webhook_secret: None,
                created: now,
                updated: now,
                publishable_key: setting.publishable_key.clone(),
            }
        }
        Some(mut row) => {
            // A live account made test (or the reverse) would leave its profiles charging
            // in a mode nobody chose; another name makes another account.
            if row.mode != checked.mode || row.provider != checked.provider {
                return Err(PaymentsError::conflict(
                    "a connector account keeps its provider and mode; set one of another name",
                ));
            }
            if let Some((secret_key, hint)) = sealed_key {
                row.secret_key = secret_key;
                row.secret_key_hint = hint;
                changes.push(Change::SecretKeyRotated);
            }
            if let Some(webhook) = sealed_webhook {
                let current = row
                    .webhook_secret
                    .as_deref()
                    .map(|sealed| open(secrets, "webhook_secret", &uuid, sealed))
                    .transpose()?;
                let unchanged = current.as_deref().map(Vec::as_slice)
                    == setting.webhook_secret.as_deref().map(str::as_bytes);
                // The same secret again changes nothing: it must not push the real one
                // before it out of the rotation.
                if !unchanged {
                    // The secret before keeps verifying until the next rotation, so events
                    // signed while the provider switches over are not lost. Its seal names
                    // the column it now sits in.
                    row.previous_webhook_secret = current
                        .map(|plain| seal_as(secrets, "previous_webhook_secret", &uuid, &plain))
                        .transpose()?;
                    row.webhook_secret = Some(webhook);
                    changes.push(Change::WebhookSecretRotated);
                }
            }
            if let Some(key) = &setting.publishable_key
                && row.publishable_key.as_ref() != Some(key)
            {
                row.publishable_key = Some(key.clone());
                changes.push(Change::PublishableKeySet);
            }
            row.updated = now;
            row
        }
    };
    let log: Vec<ChangeRow> = changes
        .iter()
        .map(|change| ChangeRow {
            // Time-ordered, so the changes of one call (one second) read in their order.
            uuid: uuid::Uuid::now_v7().to_string(),
            connector_account_uuid: row.uuid.clone(),
            account_uuid: row.account_uuid.clone(),
            change: *change,
            secret_key_hint: row.secret_key_hint.clone(),
            actor: actor.to_owned(),
            at: now,
        })
        .collect();
    let written = row.clone();
    store
        .run(move |db| {
            db.write_tx(|tx| -> Result<(), PaymentsError> {
                match &was {
                    // A name taken meanwhile fails the insert on its unique key.
                    None => store::insert(tx, &written)?,
                    Some(_) if log.is_empty() => {}
                    Some(was) => {
                        if !store::update(tx, was, &written)? {
                            return Err(PaymentsError::conflict(
                                "the connector account changed meanwhile; set it again",
                            ));
                        }
                    }
                }
                Ok(store::log(tx, &log)?)
            })
        })
        .await?;
    Ok(ConnectorAccountView {
        webhook_secrets: usize::from(row.webhook_secret.is_some())
            + usize::from(row.previous_webhook_secret.is_some()),
        uuid: row.uuid,
        account_uuid: row.account_uuid,
        name: row.name,
        provider: row.provider.as_str(),
        mode: row.mode.as_str(),
        secret_key_hint: row.secret_key_hint,
        publishable_key: row.publishable_key,
        changes: changes.into_iter().map(|c| c.as_str()).collect(),
        created: row.created,
        updated: row.updated,
    })
}

/// Seals again, at a start, what connector accounts keep sealed under a master key that is
/// no longer current (docs/decisions/secrets.md, "At start").
pub async fn seal_at_start(
    store: &Store,
    secrets: &Secrets,
) -> Result<(), coffer_store::resealing::PassError> {
    coffer_store::resealing::reseal::<store::SealedKeys>(store, secrets).await?;
    Ok(())
}

/// The connector account's secret key, opened for its connector; it stays in memory only.
pub fn secret_key(
    secrets: &Secrets,
    row: &ConnectorAccountRow,
) -> Result<zeroize::Zeroizing<String>, PaymentsError> {
    let plain = open(secrets, "secret_key", &row.uuid, &row.secret_key)?;
    String::from_utf8(plain.to_vec())
        .map(zeroize::Zeroizing::new)
        .map_err(|_| PaymentsError::internal("a connector account's secret key is not text"))
}

/// The connector account's webhook secrets, opened to check a notification's signature:
/// the current one first, then the one before it.
pub fn webhook_secrets(
    secrets: &Secrets,
    row: &ConnectorAccountRow,
) -> Result<Vec<zeroize::Zeroizing<Vec<u8>>>, PaymentsError> {
    let sealed = [
        ("webhook_secret", &row.webhook_secret),
        ("previous_webhook_secret", &row.previous_webhook_secret),
    ];
    sealed
        .into_iter()
        .filter_map(|(column, value)| value.as_ref().map(|v| (column, v)))
        .map(|(column, value)| open(secrets, column, &row.uuid, value))
        .collect()
}

fn open(
    secrets: &Secrets,
    column: &str,
    uuid: &str,
    sealed: &str,
) -> Result<zeroize::Zeroizing<Vec<u8>>, PaymentsError> {
    secrets
        .open(&context(column, uuid), sealed)
        .map_err(PaymentsError::internal)
}

fn seal_as(
    secrets: &Secrets,
    column: &str,
    uuid: &str,
    plain: &[u8],
) -> Result<String, PaymentsError> {
    secrets
        .seal(&context(column, uuid), plain)
        .map_err(PaymentsError::internal)
}
