//! A secret of the data directory kept in a file of its own, sealed with the master keys.

use std::path::Path;

use anyhow::Context;
use coffer_secrets::Secrets;
use zeroize::Zeroizing;

use crate::data_dir;

/// The shortest plaintext secret earlier versions wrote; anything shorter is not one.
const LEGACY_MIN_LEN: usize = 32;

/// The secret in `path`, made by `make` on first use. A file from before sealing (the
/// secret in plaintext) is read and sealed; one sealed under a master key that is no
/// longer current is sealed again.
pub fn load_or_create(
    path: &Path,
    context: &str,
    secrets: &Secrets,
    make: impl FnOnce() -> Zeroizing<Vec<u8>>,
) -> anyhow::Result<Zeroizing<Vec<u8>>> {
    let stored = match std::fs::read_to_string(path) {
        Ok(text) => Some(Zeroizing::new(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let raw = stored.as_deref().map(String::as_str);
    let secret = match raw.map(str::trim) {
        Some(sealed) if coffer_secrets::is_sealed(sealed) => {
            let secret = secrets.open(context, sealed).with_context(|| {
                format!(
                    "cannot open {}: it was sealed with a master key other than those \
                     configured (master-keys.json or COFFER_SECRETS__KEYS)",
                    path.display()
                )
            })?;
            if !secrets.needs_sealing(sealed) {
                return Ok(secret);
            }
            secret
        }
        // Untrimmed: the secret is every byte an earlier version read.
        Some(plain) if plain.len() >= LEGACY_MIN_LEN => {
            Zeroizing::new(raw.unwrap_or(plain).as_bytes().to_vec())
        }
        _ => make(),
    };
    let sealed = secrets
        .seal(context, &secret)
        .with_context(|| format!("cannot seal {}", path.display()))?;
    data_dir::write_private(path, format!("{sealed}\n").as_bytes())?;
    Ok(secret)
}
