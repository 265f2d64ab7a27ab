//! `<data-dir>/credentials.json`: what a new user needs to make a first call.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::data_dir;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Credentials {
    pub base_url: String,
    pub client_id: String,
    pub client_secret: String,
    pub organisation_uuid: String,
    pub account_uuids: Vec<String>,
}

pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("credentials.json")
}

pub fn read(data_dir: &Path) -> anyhow::Result<Option<Credentials>> {
    let path = path(data_dir);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).with_context(|| {
            format!(
                "{} is not valid; delete it to have a new client made",
                path.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Written owner-only: it holds a client secret.
pub fn write(data_dir: &Path, credentials: &Credentials) -> anyhow::Result<()> {
    let mut body = serde_json::to_vec_pretty(credentials)?;
    body.push(b'\n');
    data_dir::write_private(&path(data_dir), &body)
}
