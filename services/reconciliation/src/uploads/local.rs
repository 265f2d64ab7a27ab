//! The standalone store's directory: objects are files under the bucket's directory, their
//! key the relative path. Keys were checked by coffer-uploads' `verify` (a plain relative
//! path: no `..`, no empty or `.` segments), so a key never leaves the directory.

use std::path::Path;

use tokio::io::AsyncWriteExt;

use coffer_uploads::ObjectInfo;

/// Every file under `base/prefix`, as objects keyed by their path below `base`.
pub fn list(base: &Path, prefix: &str) -> std::io::Result<Vec<ObjectInfo>> {
    let mut found = Vec::new();
    let start = base.join(prefix.trim_end_matches('/'));
    if !start.exists() {
        return Ok(found);
    }
    let mut stack = vec![start];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && !is_partial(&path)
                && let Ok(relative) = path.strip_prefix(base)
                && let Some(key) = relative.to_str()
            {
                found.push(ObjectInfo {
                    key: key.to_owned(),
                    size: entry.metadata()?.len(),
                    etag: None,
                });
            }
        }
    }
    found.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(found)
}

/// An upload being written: it becomes an object only when renamed into place whole.
const PARTIAL: &str = ".coffer-partial";

fn is_partial(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == &PARTIAL[1..])
}

/// A file being received, written beside where it will land and renamed into place only
/// once complete, so a listing never sees half a file.
pub struct Receiving {
    file: tokio::fs::File,
    partial: std::path::PathBuf,
    pub written: u64,
}

impl Receiving {
    pub async fn start(dir: &Path) -> std::io::Result<Self> {
        tokio::fs::create_dir_all(dir).await?;
        let partial = dir.join(format!("{}{PARTIAL}", uuid::Uuid::new_v4().simple()));
        let file = tokio::fs::File::create(&partial).await?;
        Ok(Self {
            file,
            partial,
            written: 0,
        })
    }

    pub async fn write(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        self.file.write_all(chunk).await?;
        self.written += chunk.len() as u64;
        Ok(())
    }

    /// Places the complete file at `base/key`, replacing one there (as S3 does).
    pub async fn finish(self, base: &Path, key: &str) -> std::io::Result<()> {
        self.file.sync_all().await?;
        let target = base.join(key);
        if let Some(parent) = target.parent() {
            tokio::fs::create_dir_all(parent).await?;
        }
        tokio::fs::rename(&self.partial, &target).await
    }

    pub async fn abandon(self) {
        drop(self.file);
        let _ = tokio::fs::remove_file(&self.partial).await;
    }
}
