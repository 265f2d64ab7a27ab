//! The master keys of a standalone install, which seal every stored secret (identity's
//! signing keys, the fingerprint key).
//!
//! `COFFER_SECRETS__KEYS` and `COFFER_SECRETS__CURRENT` win when set, as for the service
//! binaries, and then nothing is written. Otherwise they live in `master-keys.json` in the
//! data directory, made on first start. That file sits beside what it protects, so it
//! guards against a copied database or a leaked backup of one file, not against someone
//! who can read the whole directory; docs/decisions/secrets.md has the trade-off.

use std::path::{Path, PathBuf};

use anyhow::Context;
use coffer_secrets::{MasterKey, Secrets, SecretsSettings};

use crate::data_dir;

const FILE: &str = "master-keys.json";

pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// The keys from the environment or the data directory, made there if there are none.
pub fn load_or_create(data_dir: &Path) -> anyhow::Result<Secrets> {
    if let Some(secrets) = load(data_dir)? {
        return Ok(secrets);
    }
    let (_, entry) = MasterKey::generate(&new_kid()).context("cannot make a master key")?;
    let settings = SecretsSettings {
        keys: entry.to_string(),
        current: String::new(),
    };
    write(data_dir, &settings)?;
    keyring(&settings, &path(data_dir))
}

/// The keys from the environment or the data directory, if either has them.
pub fn load(data_dir: &Path) -> anyhow::Result<Option<Secrets>> {
    let from_env = SecretsSettings {
        keys: std::env::var("COFFER_SECRETS__KEYS").unwrap_or_default(),
        current: std::env::var("COFFER_SECRETS__CURRENT").unwrap_or_default(),
    };
    if !from_env.keys.trim().is_empty() {
        return keyring(&from_env, Path::new("COFFER_SECRETS__KEYS")).map(Some);
    }
    let file = path(data_dir);
    match read(&file)? {
        Some(settings) => keyring(&settings, &file).map(Some),
        None => Ok(None),
    }
}

/// Adds a new key to the data directory's file and makes it current; the old ones stay,
/// so what they sealed still opens until the next `coffer dev` start seals it again.
/// Returns the new key's id.
pub fn rotate(data_dir: &Path) -> anyhow::Result<String> {
    if std::env::var_os("COFFER_SECRETS__KEYS").is_some() {
        anyhow::bail!(
            "COFFER_SECRETS__KEYS is set: rotate by adding a key to it and naming it in \
             COFFER_SECRETS__CURRENT (docs/decisions/secrets.md)"
        );
    }
    let file = path(data_dir);
    let mut settings = read(&file)?.with_context(|| {
        format!(
            "{} does not exist: `coffer dev` makes it on first start",
            file.display()
        )
    })?;
    keyring(&settings, &file)?;
    let kid = new_kid();
    let (_, entry) = MasterKey::generate(&kid).context("cannot make a master key")?;
    settings.keys = format!("{},{}", settings.keys.trim_end_matches(','), entry.as_str());
    settings.current = kid.clone();
    keyring(&settings, &file)?;
    write(data_dir, &settings)?;
    Ok(kid)
}

/// A new entry for `secrets.keys` of a distributed install, to be added by the operator.
pub fn new_entry() -> anyhow::Result<(String, String)> {
    let kid = new_kid();
    let (_, entry) = MasterKey::generate(&kid).context("cannot make a master key")?;
    Ok((kid, entry.to_string()))
}

fn new_kid() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("k{}", &id[..8])
}

fn keyring(settings: &SecretsSettings, source: &Path) -> anyhow::Result<Secrets> {
    settings
        .require()
        .with_context(|| format!("master keys in {}", source.display()))
}

fn read(file: &Path) -> anyhow::Result<Option<SecretsSettings>> {
    match std::fs::read(file) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .with_context(|| format!("{} is not valid", file.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", file.display())),
    }
}

fn write(data_dir: &Path, settings: &SecretsSettings) -> anyhow::Result<()> {
    let mut body = serde_json::to_vec_pretty(settings)?;
    body.push(b'\n');
    data_dir::write_private(&path(data_dir), &body)
}
