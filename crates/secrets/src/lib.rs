//! Secrets at rest: every secret Coffer stores and reads back (identity's signing keys,
//! standalone's card fingerprint key, webhook passwords and HMAC keys, SFTP credentials,
//! onboarding tokens) is sealed here, and nowhere else, so there is one format, one key
//! configuration and one rotation procedure (docs/decisions/secrets.md).
//!
//! A sealed value is text, `v1.<kid>.<base64url(nonce || ciphertext || tag)>`, sealed with
//! AES-256-GCM under the master key `kid`. The associated data binds it to its context (for
//! example `identity.signing_key:<kid>`), so a value copied into another row does not open.

mod master_key;
mod sealed;
mod secrets;
mod settings;
mod tokens;

pub use master_key::{KEY_LEN, MasterKey, MasterKeyError};
pub use sealed::{SEALED_PREFIX, is_sealed};
pub use secrets::{OpenError, ResealError, SealError, Secrets, SecretsError};
pub use settings::{SecretsSettings, SettingsError};
pub use tokens::{RandomFailed, random_token, sha256_hex};
