//! The calls a poll makes to an SFTP server, on russh and russh-sftp: connect to an
//! address the policy permits (the checked address, not the name again), accept only the
//! source's pinned host key, sign in, then list, download and move files.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use coffer_http::address_policy::{AddressPolicy, Refused, Unreachable};
use russh::keys::{HashAlg, PrivateKeyWithHashAlg, PublicKey, PublicKeyOrCertificate};
use russh::{AlgorithmKind, Disconnect, Preferred, client};
use russh_sftp::client::SftpSession;
use russh_sftp::client::error::Error as SftpError;
use tokio::io::AsyncReadExt;
use zeroize::Zeroizing;

use super::domain::{self, Listed};

/// From the first packet to a signed-in session: a server that takes longer is down.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long the server has to answer one SFTP request (a listing, a read of 32 KiB).
const REQUEST_TIMEOUT_SECS: u64 = 30;
/// A session with nothing received for this long is given up.
const INACTIVITY: Duration = Duration::from_secs(120);

/// How Coffer signs in, opened from the sealed secret for the length of a poll.
pub enum Credential {
    Password(Zeroizing<String>),
    PrivateKey(Zeroizing<String>),
}

impl Credential {
    fn method(&self) -> &'static str {
        match self {
            Credential::Password(_) => "password",
            Credential::PrivateKey(_) => "private key",
        }
    }
}

/// The server a source names.
pub struct Target<'a> {
    pub host: &'a str,
    pub port: u16,
    pub username: &'a str,
    pub credential: Credential,
    /// The server's public key in OpenSSH form, `ssh-ed25519 AAAA…`.
    pub host_key: &'a str,
}

/// Why a poll could not go on; the text is what the source shows as its `poll_error`.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The host's addresses are all outside the address policy.
    #[error(transparent)]
    Refused(Refused),
    #[error("{host} does not resolve: {reason}")]
    Lookup {
        host: String,
        reason: std::io::Error,
    },
    #[error("could not connect to {host} port {port}: {reason}")]
    Connect {
        host: String,
        port: u16,
        reason: std::io::Error,
    },
    #[error("{host} port {port} did not let Coffer sign in within {} s", CONNECT_TIMEOUT.as_secs())]
    Timeout { host: String, port: u16 },
    #[error("the source's host_key is not an OpenSSH public key: {0}")]
    BadHostKey(String),
    #[error(
        "the server's host key ({offered}) does not match the source's host_key; no file was read"
    )]
    HostKeyMismatch { offered: String },
    #[error(
        "the server's host key does not match the source's host_key: it has no key of that type (it offers {offered}); no file was read"
    )]
    HostKeyTypeMissing { offered: String },
    #[error("the source's private key cannot be read: {0}")]
    BadPrivateKey(String),
    #[error("the server refused the {method} of user {username}")]
    SignInRefused {
        method: &'static str,
        username: String,
    },
    #[error("SSH: {0}")]
    Ssh(russh::Error),
    #[error("SFTP on {path}: {reason}")]
    Sftp { path: String, reason: SftpError },
    #[error(
        "{name} is larger than {max} bytes, the most a bank file may have (reconciliation.max_file_bytes); it was left on the server"
    )]
    TooLarge { name: String, max: usize },
}

impl From<russh::Error> for ClientError {
    fn from(e: russh::Error) -> Self {
        match e {
            russh::Error::NoCommonAlgo {
                kind: AlgorithmKind::Key,
                theirs,
                ..
            } => ClientError::HostKeyTypeMissing {
                offered: theirs.join(", "),
            },
            other => ClientError::Ssh(other),
        }
    }
}

fn sftp_error(path: &str) -> impl FnOnce(SftpError) -> ClientError + '_ {
    move |reason| ClientError::Sftp {
        path: path.to_owned(),
        reason,
    }
}

/// Accepts the pinned key and nothing else, checked on every connection: the session is
/// given up before Coffer signs in, so a server in the middle never sees a credential.
struct PinnedHostKey {
    expected: PublicKey,
}

impl client::Handler for PinnedHostKey {
    type Error = ClientError;

    async fn check_server_key(
        &mut self,
        offered: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        match offered {
            PublicKeyOrCertificate::PublicKey { key, .. }
                if key.key_data() == self.expected.key_data() =>
            {
                Ok(true)
            }
            PublicKeyOrCertificate::PublicKey { key, .. } => Err(ClientError::HostKeyMismatch {
                offered: format!(
                    "{} {}",
                    key.algorithm().as_str(),
                    key.fingerprint(HashAlg::Sha256)
                ),
            }),
            PublicKeyOrCertificate::Certificate(_) => Err(ClientError::HostKeyMismatch {
                offered: "a certificate".into(),
            }),
        }
    }
}

/// A signed-in SFTP session.
pub struct Connection {
    ssh: client::Handle<PinnedHostKey>,
    sftp: SftpSession,
    /// Whether `processed/` is known to exist in this session.
    processed_ready: bool,
}

impl Connection {
    /// Resolves the host, keeps the addresses the policy permits, and connects to the
    /// first that answers; within [`CONNECT_TIMEOUT`] it must show the pinned key and
    /// let Coffer sign in.
    pub async fn open(target: Target<'_>, policy: &AddressPolicy) -> Result<Self, ClientError> {
        let expected = PublicKey::from_openssh(target.host_key)
            .map_err(|e| ClientError::BadHostKey(e.to_string()))?;
        let addresses = policy
            .resolve(target.host, target.port)
            .await
            .map_err(|e| match e {
                Unreachable::Refused(refused) => ClientError::Refused(refused),
                Unreachable::Lookup(reason) => ClientError::Lookup {
                    host: target.host.to_owned(),
                    reason,
                },
            })?;
        let (host, port) = (target.host.to_owned(), target.port);
        tokio::time::timeout(CONNECT_TIMEOUT, sign_in(&addresses, target, expected))
            .await
            .map_err(|_| ClientError::Timeout { host, port })?
    }

    /// The bank files in `directory`: regular files only, so `processed/` and any other
    /// directory are left out.
    pub async fn list(&self, directory: &str) -> Result<Vec<Listed>, ClientError> {
        let entries = self
            .sftp
            .read_dir(directory)
            .await
            .map_err(sftp_error(directory))?;
        Ok(entries
            .filter_map(|entry| {
                let name = entry.file_name();
                let attributes = entry.metadata();
                domain::is_bank_file(&name, attributes.permissions).then(|| Listed {
                    name,
                    size: attributes.size.unwrap_or(0),
                    mtime: attributes.mtime.unwrap_or(0),
                })
            })
            .collect())
    }

    /// The file's bytes, refused past `max` bytes whatever the listing said of its size.
    pub async fn download(
        &self,
        path: &str,
        name: &str,
        max: usize,
    ) -> Result<Vec<u8>, ClientError> {
        let mut file = self.sftp.open(path).await.map_err(sftp_error(path))?;
        let mut bytes = Vec::new();
        let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
        (&mut file)
            .take(limit)
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| sftp_error(path)(SftpError::from(e)))?;
        // A close that fails changes nothing of what was read.
        if let Err(e) = file.close().await {
            tracing::debug!(path, error = %e, "closing a downloaded file failed");
        }
        if bytes.len() > max {
            return Err(ClientError::TooLarge {
                name: name.to_owned(),
                max,
            });
        }
        Ok(bytes)
    }

    /// Moves a read file to `<directory>/processed/<name>` (made when missing), or beside a
    /// file of the same name already there, under `<name>.<row>`.
    pub async fn move_to_processed(
        &mut self,
        directory: &str,
        name: &str,
        row: &str,
    ) -> Result<(), ClientError> {
        let processed = domain::processed_directory(directory);
        if !self.processed_ready {
            let exists = self
                .sftp
                .try_exists(processed.as_str())
                .await
                .map_err(sftp_error(&processed))?;
            if !exists {
                self.sftp
                    .create_dir(processed.as_str())
                    .await
                    .map_err(sftp_error(&processed))?;
            }
            self.processed_ready = true;
        }
        let from = domain::join(directory, name);
        let to = domain::processed_path(directory, name, None);
        let Err(first) = self.sftp.rename(from.as_str(), to.as_str()).await else {
            return Ok(());
        };
        // SFTP's rename never replaces a file: a name taken in processed/ gets the row's.
        if self.sftp.try_exists(to.as_str()).await.unwrap_or(false) {
            let aside = domain::processed_path(directory, name, Some(row));
            return self
                .sftp
                .rename(from.as_str(), aside.as_str())
                .await
                .map_err(sftp_error(&from));
        }
        Err(sftp_error(&from)(first))
    }

    /// Ends the session; the server learns Coffer is done.
    pub async fn close(self) {
        let _ = self.sftp.close().await;
        let _ = self
            .ssh
            .disconnect(Disconnect::ByApplication, "", "en")
            .await;
    }
}

/// The host key algorithms to ask for: those of the pinned key's type only, so a server
/// with several keys shows the one Coffer can check.
fn host_key_algorithms(expected: &PublicKey) -> Preferred {
    let wanted = expected.algorithm();
    let rsa = wanted.clone().is_rsa();
    let algorithms: Vec<_> = Preferred::DEFAULT
        .key
        .iter()
        .filter(|a| {
            if rsa {
                (*a).clone().is_rsa()
            } else {
                **a == wanted
            }
        })
        .cloned()
        .collect();
    if algorithms.is_empty() {
        return Preferred::DEFAULT;
    }
    Preferred {
        key: Cow::Owned(algorithms),
        ..Preferred::DEFAULT
    }
}

async fn sign_in(
    addresses: &[SocketAddr],
    target: Target<'_>,
    expected: PublicKey,
) -> Result<Connection, ClientError> {
    let config = Arc::new(client::Config {
        preferred: host_key_algorithms(&expected),
        inactivity_timeout: Some(INACTIVITY),
        nodelay: true,
        ..client::Config::default()
    });
    let stream = tcp(addresses, target.host, target.port).await?;
    let mut ssh = client::connect_stream(config, stream, PinnedHostKey { expected }).await?;
    let method = target.credential.method();
    let signed_in = match &target.credential {
        Credential::Password(password) => {
            ssh.authenticate_password(target.username, password.as_str())
                .await?
        }
        Credential::PrivateKey(text) => {
            let key = russh::keys::decode_secret_key(text, None)
                .map_err(|e| ClientError::BadPrivateKey(e.to_string()))?;
            let hash = if key.algorithm().is_rsa() {
                ssh.best_supported_rsa_hash().await?.flatten()
            } else {
                None
            };
            let key = PrivateKeyWithHashAlg::new(Arc::new(key), hash);
            ssh.authenticate_publickey(target.username, key).await?
        }
    };
    if !signed_in.success() {
        return Err(ClientError::SignInRefused {
            method,
            username: target.username.to_owned(),
        });
    }
    let channel = ssh.channel_open_session().await?;
    channel.request_subsystem(true, "sftp").await?;
    let sftp = SftpSession::new(channel.into_stream())
        .await
        .map_err(sftp_error("/"))?;
    sftp.set_timeout(REQUEST_TIMEOUT_SECS);
    Ok(Connection {
        ssh,
        sftp,
        processed_ready: false,
    })
}

/// A TCP connection to the first of `addresses` that answers.
async fn tcp(
    addresses: &[SocketAddr],
    host: &str,
    port: u16,
) -> Result<tokio::net::TcpStream, ClientError> {
    let mut last = std::io::Error::other("no address");
    for address in addresses {
        match tokio::net::TcpStream::connect(address).await {
            Ok(stream) => return Ok(stream),
            Err(e) => last = e,
        }
    }
    Err(ClientError::Connect {
        host: host.to_owned(),
        port,
        reason: last,
    })
}
