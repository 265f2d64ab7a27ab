//! A source's rules: what a request must hold, and where its files land.

use coffer_model::text_enum;
use coffer_model::validation::{FieldError, Violations};
use serde::Deserialize;
use uuid::Uuid;

use crate::blueprints::domain::MAX_NAME_CHARS;
use crate::fields::{required_choice, required_text as text, required_uuid};

text_enum! {
    /// How a source's files arrive.
    pub enum SourceKind {
        /// Uploaded with the source's upload credentials (SPEC.md's upload procedure).
        ApiUpload => "api_upload",
        /// Fetched from the organisation's SFTP server on an interval.
        Sftp => "sftp",
        /// Placed by a bank connector, or by the operator (`coffer reconcile --source`).
        BankTransfer => "bank_transfer",
    }
}

/// Bounds of an SFTP source's polling interval, in seconds.
pub const MIN_POLL_SECONDS: i32 = 60;
pub const MAX_POLL_SECONDS: i32 = 86_400;
pub const DEFAULT_POLL_SECONDS: i32 = 300;
/// Private keys and passwords above this size are not credentials.
pub const MAX_SECRET_CHARS: usize = 16_384;

/// A create request as it arrives. Properties it does not name, here and in `sftp`, are
/// ignored.
// As API.md's conventions say, and as a blueprint's are.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
pub struct SourceRequest {
    pub name: Option<String>,
    pub organisation_uuid: Option<String>,
    pub account_uuid: Option<String>,
    /// `api_upload`, `sftp` or `bank_transfer`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The blueprint the source's files are processed by: one of the same account.
    pub blueprint_uuid: Option<String>,
    /// Required for `sftp`, refused otherwise.
    pub sftp: Option<SftpRequest>,
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
pub struct SftpRequest {
    pub host: Option<String>,
    /// 22 when absent.
    pub port: Option<u32>,
    pub username: Option<String>,
    /// Exactly one of `password` and `private_key` (OpenSSH format).
    pub password: Option<String>,
    pub private_key: Option<String>,
    /// Where new files are; processed ones are moved to `processed/` under it. `/` when
    /// absent.
    pub directory: Option<String>,
    /// 60 to 86400 seconds, 300 when absent.
    pub poll_seconds: Option<i32>,
    /// The server's public key in OpenSSH form (`ssh-ed25519 AAAA…`), checked on every
    /// connection.
    pub host_key: Option<String>,
}

/// A source request that holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInput {
    pub name: String,
    pub organisation_uuid: Uuid,
    pub account_uuid: Uuid,
    pub kind: SourceKind,
    pub blueprint_uuid: Uuid,
    pub sftp: Option<SftpInput>,
}

#[derive(Clone, PartialEq, Eq)]
pub struct SftpInput {
    pub host: String,
    pub port: u16,
    pub username: String,
    pub secret: SftpSecret,
    pub directory: String,
    pub poll_seconds: i32,
    pub host_key: String,
}

impl std::fmt::Debug for SftpInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SftpInput")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("username", &self.username)
            .field("directory", &self.directory)
            .finish_non_exhaustive()
    }
}

/// How Coffer signs in to the SFTP server; kept sealed, never answered.
#[derive(Clone, PartialEq, Eq)]
pub enum SftpSecret {
    Password(String),
    PrivateKey(String),
}

impl SftpSecret {
    pub fn kind(&self) -> &'static str {
        match self {
            SftpSecret::Password(_) => "password",
            SftpSecret::PrivateKey(_) => "private_key",
        }
    }

    pub fn text(&self) -> &str {
        match self {
            SftpSecret::Password(s) | SftpSecret::PrivateKey(s) => s,
        }
    }
}

/// The context an SFTP secret is sealed under: bound to its source, so a sealed value
/// copied into another row does not open.
pub fn secret_context(source: &str) -> String {
    format!("reconciliation.sftp:{source}")
}

/// The key prefix under which a source's uploaded files land in the bucket.
pub fn upload_prefix(source: &str) -> String {
    format!("sources/{source}")
}

/// A host name or an address literal: letters, digits, dots, hyphens and colons only.
fn host_name(v: &mut Violations, raw: &str) -> Option<String> {
    let ok = !raw.is_empty()
        && raw.len() <= 253
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
    if ok {
        Some(raw.to_ascii_lowercase())
    } else {
        v.push(FieldError::not_valid(
            "sftp.host",
            "must be a host name or an IP address",
        ));
        None
    }
}

/// `ssh-ed25519 AAAA…`, `ecdsa-sha2-nistp256 AAAA…` or `ssh-rsa AAAA…`: an algorithm and
/// base64 key data, a comment after them allowed.
fn host_key(v: &mut Violations, raw: &str) -> Option<String> {
    let mut parts = raw.split_whitespace();
    let (Some(algorithm), Some(data)) = (parts.next(), parts.next()) else {
        v.push(FieldError::not_valid(
            "sftp.host_key",
            "must be an OpenSSH public key: algorithm and base64 key",
        ));
        return None;
    };
    let known = matches!(
        algorithm,
        "ssh-ed25519"
            | "ssh-rsa"
            | "ecdsa-sha2-nistp256"
            | "ecdsa-sha2-nistp384"
            | "ecdsa-sha2-nistp521"
    );
    // Parsed as the poller will read it: a key of the named type, whole.
    let parses = data.len() <= 4096
        && russh::keys::PublicKey::from_openssh(&format!("{algorithm} {data}"))
            .is_ok_and(|key| key.algorithm().as_str() == algorithm);
    if known && parses {
        Some(format!("{algorithm} {data}"))
    } else {
        v.push(FieldError::not_valid(
            "sftp.host_key",
            "must be an OpenSSH public key (ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa)",
        ));
        None
    }
}

impl SftpRequest {
    fn check(self, v: &mut Violations) -> Option<SftpInput> {
        let host = text(v, "sftp.host", self.host.as_deref(), 253).and_then(|h| host_name(v, &h));
        let port = match self.port.unwrap_or(22) {
            p @ 1..=65_535 => u16::try_from(p).ok(),
            _ => {
                v.push(FieldError::not_valid("sftp.port", "must be 1 to 65535"));
                None
            }
        };
        let username = text(v, "sftp.username", self.username.as_deref(), 200);
        let secret = match (self.password, self.private_key) {
            (Some(p), None) if !p.is_empty() && p.len() <= MAX_SECRET_CHARS => {
                Some(SftpSecret::Password(p))
            }
            (None, Some(k)) if k.contains("PRIVATE KEY") && k.len() <= MAX_SECRET_CHARS => {
                Some(SftpSecret::PrivateKey(k))
            }
            (Some(_), Some(_)) => {
                v.push(FieldError::not_valid(
                    "sftp.password",
                    "give password or private_key, not both",
                ));
                None
            }
            (None, None) => {
                v.push(FieldError::not_null("sftp.password"));
                None
            }
            (Some(_), None) => {
                v.push(FieldError::not_valid(
                    "sftp.password",
                    format!("must be 1 to {MAX_SECRET_CHARS} characters"),
                ));
                None
            }
            (None, Some(_)) => {
                v.push(FieldError::not_valid(
                    "sftp.private_key",
                    "must be a private key in PEM or OpenSSH form",
                ));
                None
            }
        };
        let directory = match self.directory.as_deref().map(str::trim) {
            None | Some("") => Some("/".to_owned()),
            Some(d)
                if d.len() <= 1024
                    && !d.split('/').any(|part| part == "..")
                    && !d.chars().any(char::is_control) =>
            {
                Some(d.to_owned())
            }
            Some(_) => {
                v.push(FieldError::not_valid(
                    "sftp.directory",
                    "must be a path of at most 1024 characters without .. or control characters",
                ));
                None
            }
        };
        let poll_seconds = match self.poll_seconds.unwrap_or(DEFAULT_POLL_SECONDS) {
            s @ MIN_POLL_SECONDS..=MAX_POLL_SECONDS => Some(s),
            _ => {
                v.push(FieldError::not_valid(
                    "sftp.poll_seconds",
                    format!("must be {MIN_POLL_SECONDS} to {MAX_POLL_SECONDS} seconds"),
                ));
                None
            }
        };
        let host_key = match self.host_key.as_deref() {
            None => {
                v.push(FieldError::not_null("sftp.host_key"));
                None
            }
            Some(raw) => host_key(v, raw.trim()),
        };
        Some(SftpInput {
            host: host?,
            port: port?,
            username: username?,
            secret: secret?,
            directory: directory?,
            poll_seconds: poll_seconds?,
            host_key: host_key?,
        })
    }
}

impl SourceRequest {
    /// Every offending property is named, not only the first.
    pub fn check(self) -> Result<SourceInput, Vec<FieldError>> {
        let mut v = Violations::new();
        let name = text(&mut v, "name", self.name.as_deref(), MAX_NAME_CHARS);
        let organisation = required_uuid(
            &mut v,
            "organisation_uuid",
            self.organisation_uuid.as_deref(),
        );
        let account = required_uuid(&mut v, "account_uuid", self.account_uuid.as_deref());
        let blueprint = required_uuid(&mut v, "blueprint_uuid", self.blueprint_uuid.as_deref());
        let kind = required_choice(
            &mut v,
            "type",
            self.kind.as_deref(),
            SourceKind::parse,
            "must be api_upload, sftp or bank_transfer",
        );
        let sftp = match (kind, self.sftp) {
            (Some(SourceKind::Sftp), Some(s)) => s.check(&mut v),
            (Some(SourceKind::Sftp), None) => {
                v.push(FieldError::not_null("sftp"));
                None
            }
            (Some(_), Some(_)) => {
                v.push(FieldError::not_valid(
                    "sftp",
                    "is only for a source of type sftp",
                ));
                None
            }
            _ => None,
        };
        match (name, organisation, account, kind, blueprint) {
            (
                Some(name),
                Some(organisation_uuid),
                Some(account_uuid),
                Some(kind),
                Some(blueprint_uuid),
            ) if v.is_empty() => Ok(SourceInput {
                name,
                organisation_uuid,
                account_uuid,
                kind,
                blueprint_uuid,
                sftp,
            }),
            _ => Err(v.into_vec()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sftp() -> SftpRequest {
        SftpRequest {
            host: Some("sftp.bank.example".into()),
            port: None,
            username: Some("charity".into()),
            password: Some("s3cret".into()),
            private_key: None,
            directory: Some("/out".into()),
            poll_seconds: None,
            host_key: Some("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f comment".into()),
        }
    }

    fn request(kind: &str, sftp: Option<SftpRequest>) -> SourceRequest {
        SourceRequest {
            name: Some("Bank".into()),
            organisation_uuid: Some(Uuid::nil().to_string()),
            account_uuid: Some(Uuid::nil().to_string()),
            kind: Some(kind.into()),
            blueprint_uuid: Some(Uuid::nil().to_string()),
            sftp,
        }
    }

    #[test]
    fn an_sftp_source_takes_defaults_and_drops_the_key_comment() {
        let input = request("sftp", Some(sftp())).check().unwrap();
        let s = input.sftp.unwrap();
        assert_eq!((s.port, s.poll_seconds), (22, DEFAULT_POLL_SECONDS));
        assert_eq!(
            s.host_key,
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f"
        );
        assert_eq!(s.secret.kind(), "password");
    }

    #[test]
    fn every_wrong_sftp_property_is_named() {
        let mut s = sftp();
        s.host = Some("bad host/".into());
        s.port = Some(70_000);
        s.private_key = Some("key".into());
        s.poll_seconds = Some(5);
        s.host_key = None;
        s.directory = Some("/a/../b".into());
        let named: Vec<String> = request("sftp", Some(s))
            .check()
            .unwrap_err()
            .into_iter()
            .map(|e| e.property)
            .collect();
        assert_eq!(
            named,
            [
                "sftp.host",
                "sftp.port",
                "sftp.password",
                "sftp.directory",
                "sftp.poll_seconds",
                "sftp.host_key"
            ]
        );
    }

    #[test]
    fn sftp_settings_belong_to_sftp_sources_only() {
        let named: Vec<String> = request("api_upload", Some(sftp()))
            .check()
            .unwrap_err()
            .into_iter()
            .map(|e| e.property)
            .collect();
        assert_eq!(named, ["sftp"]);
        let named: Vec<String> = request("sftp", None)
            .check()
            .unwrap_err()
            .into_iter()
            .map(|e| e.property)
            .collect();
        assert_eq!(named, ["sftp"]);
        assert!(request("bank_transfer", None).check().is_ok());
    }
}
