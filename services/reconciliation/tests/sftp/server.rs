//! The SFTP server of scripts/sftp.sh as the tests see it: its address and keys, a
//! directory of each test's own under its root, and files dropped there as a bank's client
//! drops them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

/// The test server, as scripts/sftp.sh describes it.
pub(crate) struct Server {
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) user: String,
    pub(crate) password: String,
    pub(crate) client_key: PathBuf,
    pub(crate) client_public_key: String,
    pub(crate) host_key: String,
    pub(crate) root: PathBuf,
}

pub(crate) fn server() -> Server {
    let text = std::env::var("COFFER_TEST_SFTP").unwrap_or_else(|_| {
        panic!(
            "COFFER_TEST_SFTP is not set: these tests need the SFTP server of scripts/sftp.sh; \
             run `export COFFER_TEST_SFTP=\"$(scripts/sftp.sh)\"` first (make test does)"
        )
    });
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("COFFER_TEST_SFTP is not the JSON scripts/sftp.sh prints: {e}"));
    let text_of = |k: &str| {
        v[k].as_str()
            .unwrap_or_else(|| panic!("COFFER_TEST_SFTP has no {k}"))
            .to_owned()
    };
    Server {
        host: text_of("host"),
        port: v["port"]
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .expect("COFFER_TEST_SFTP has no port"),
        user: text_of("user"),
        password: text_of("password"),
        client_key: text_of("client_key").into(),
        client_public_key: text_of("client_public_key"),
        host_key: text_of("host_key"),
        root: text_of("root").into(),
    }
}

/// A directory of this test's own under the server's root: (its path here, its path as a
/// session sees it).
pub(crate) fn own_directory(server: &Server) -> (PathBuf, String) {
    let name = uuid::Uuid::new_v4().to_string();
    let here = server.root.join(&name);
    std::fs::create_dir_all(&here).unwrap();
    (here, format!("/{name}"))
}

/// Places a file as a bank's client would: written under a hidden name, then renamed, so a
/// poll never sees it half-written. `mtime` keeps a copy's time the original's.
pub(crate) fn drop_file(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    mtime: Option<std::time::SystemTime>,
) {
    let partial = dir.join(format!(".{name}.part"));
    std::fs::write(&partial, bytes).unwrap();
    if let Some(at) = mtime {
        std::fs::File::options()
            .write(true)
            .open(&partial)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }
    std::fs::rename(&partial, dir.join(name)).unwrap();
}

/// Waits until `path` exists (a read file moved to processed/).
pub(crate) async fn until_exists(path: &Path) {
    for _ in 0..400 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{} never appeared", path.display());
}
