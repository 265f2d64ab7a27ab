//! The `secrets` section of a service's configuration: which master keys there are and
//! which one seals.
//!
//! ```toml
//! [secrets]
//! keys = "k2026a:<base64 of 32 bytes>,k2026b:<base64 of 32 bytes>"
//! current = "k2026b"
//! ```
//!
//! or `COFFER_SECRETS__KEYS` and `COFFER_SECRETS__CURRENT` in the environment (a Kubernetes
//! Secret, see docs/deployment.md).

use serde::{Deserialize, Serialize};

use crate::secrets::{Secrets, SecretsError};

#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SecretsSettings {
    /// `kid:base64key` entries separated by commas; every key that may still have sealed
    /// something stays listed until its values are sealed again.
    pub keys: String,
    /// The key id that seals; may be left empty when there is one key.
    pub current: String,
}

/// Settings are printed at start-up and in errors; the keys never are.
impl std::fmt::Debug for SecretsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsSettings")
            .field("keys", &"<redacted>")
            .field("current", &self.current)
            .finish()
    }
}

/// A setting that is wrong, by its name, for the service's configuration error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("setting `{setting}` is invalid: {message}")]
pub struct SettingsError {
    pub setting: &'static str,
    pub message: String,
}

impl SecretsSettings {
    /// The keyring, or `None` when no key is configured; a malformed one is an error.
    pub fn keyring(&self) -> Result<Option<Secrets>, SettingsError> {
        if self.keys.trim().is_empty() {
            return Ok(None);
        }
        let current = Some(self.current.trim()).filter(|c| !c.is_empty());
        Secrets::parse(&self.keys, current)
            .map(Some)
            .map_err(|e| SettingsError {
                setting: match e {
                    SecretsError::UnknownCurrent(_) | SecretsError::NoCurrent => "secrets.current",
                    _ => "secrets.keys",
                },
                message: e.to_string(),
            })
    }

    /// The keyring a service that stores secrets cannot start without.
    pub fn require(&self) -> Result<Secrets, SettingsError> {
        self.keyring()?.ok_or_else(|| SettingsError {
            setting: "secrets.keys",
            message: "is required (COFFER_SECRETS__KEYS): master keys as kid:base64key, \
                      e.g. k1:$(openssl rand -base64 32); see docs/decisions/secrets.md"
                .into(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    fn settings(keys: &str, current: &str) -> SecretsSettings {
        SecretsSettings {
            keys: keys.into(),
            current: current.into(),
        }
    }

    #[test]
    fn names_the_setting_at_fault() {
        assert_eq!(settings("", "").keyring().unwrap().map(|_| ()), None);
        assert_eq!(
            settings("", "").require().unwrap_err().setting,
            "secrets.keys"
        );
        assert_eq!(
            settings("k1:short", "").keyring().unwrap_err().setting,
            "secrets.keys"
        );
        assert_eq!(
            settings(&format!("k1:{KEY}"), "k2")
                .keyring()
                .unwrap_err()
                .setting,
            "secrets.current"
        );
        let ring = settings(&format!("k1:{KEY}"), "").require().unwrap();
        assert_eq!(ring.current_kid(), "k1");
    }

    #[test]
    fn debug_output_hides_the_keys() {
        let shown = format!("{:?}", settings(&format!("k1:{KEY}"), "k1"));
        assert!(!shown.contains(KEY), "{shown}");
    }
}
