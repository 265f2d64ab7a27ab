//! The standalone store's directory: objects are files under the bucket's directory, their
//! key the relative path. Keys were checked by coffer-uploads' `verify` (a plain relative
//! path: no `..`, no empty or `.` segments), so a key never leaves the directory. Files
//! being received are written in `<root>/.incoming`, outside the bucket, and renamed into
//! place whole, so a listing never sees half a file and every key name is free to use.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use coffer_uploads::ObjectInfo;
use tokio::io::AsyncWriteExt;

/// Every file under `base/prefix`, as objects keyed by their path below `base`.
pub fn list(base: &Path, prefix: &str) -> std::io::Result<Vec<ObjectInfo>> {
    let mut found = Vec::new();
    let start = base.join(prefix.trim_end_matches('/'));
    // A prefix that is one object's whole key names that object (as in S3's listing).
    if start.is_file() {
        return Ok(object(base, &start, &std::fs::metadata(&start)?)
            .into_iter()
            .collect());
    }
    if !start.is_dir() {
        return Ok(found);
    }
    let mut stack = vec![start];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                found.extend(object(base, &entry.path(), &entry.metadata()?));
            }
        }
    }
    found.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(found)
}

/// The object a file under `base` is: its key is its path below `base`.
fn object(base: &Path, path: &Path, meta: &std::fs::Metadata) -> Option<ObjectInfo> {
    let key = path.strip_prefix(base).ok()?.to_str()?;
    // The version a new file under the same key differs by.
    let written = meta
        .modified()
        .ok()
        .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Some(ObjectInfo {
        key: key.to_owned(),
        size: meta.len(),
        etag: None,
        last_modified: written.to_string(),
    })
}

/// Where files being received are written.
pub fn incoming(root: &Path) -> PathBuf {
    root.join(".incoming")
}

/// Removes what uploads cut short (a process that died mid-upload) left behind; run before
/// the store serves, when no upload is under way.
pub fn clear_incoming(root: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(incoming(root)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Why a received file could not be placed under its key.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    /// The key names a directory of other objects, or runs through an object's name: a
    /// directory cannot hold both, where S3 could.
    #[error("the key clashes with another object's path in this store")]
    Clash,
    /// A segment of the key is longer than a file name may be on disk; S3 would take it.
    #[error(
        "a segment of the key is longer than {MAX_SEGMENT_BYTES} bytes, which this store cannot keep"
    )]
    SegmentTooLong,
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The longest file name common file systems keep (ext4, XFS, APFS, NTFS: 255).
pub const MAX_SEGMENT_BYTES: usize = 255;

/// Whether the disk can keep a file under `key`: each of its segments a file name short
/// enough (a key S3 takes can have longer ones).
pub fn keepable(key: &str) -> Result<(), PlaceError> {
    if key
        .split('/')
        .any(|segment| segment.len() > MAX_SEGMENT_BYTES)
    {
        return Err(PlaceError::SegmentTooLong);
    }
    Ok(())
}

/// A file being received, written aside and renamed into place only once complete.
pub struct Receiving {
    file: tokio::fs::File,
    partial: PathBuf,
    pub written: u64,
}

impl Receiving {
    pub async fn start(root: &Path) -> std::io::Result<Self> {
        let dir = incoming(root);
        tokio::fs::create_dir_all(&dir).await?;
        let partial = dir.join(uuid::Uuid::new_v4().simple().to_string());
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

    /// Places the complete file at `base/key`, replacing a file there (as S3 does). The
    /// partial file is removed whatever happens.
    pub async fn finish(self, base: &Path, key: &str) -> Result<(), PlaceError> {
        let placed = self.place(base, key).await;
        if placed.is_err() {
            let _ = tokio::fs::remove_file(&self.partial).await;
        }
        placed
    }

    async fn place(&self, base: &Path, key: &str) -> Result<(), PlaceError> {
        keepable(key)?;
        self.file.sync_all().await?;
        let target = base.join(key);
        if tokio::fs::metadata(&target).await.is_ok_and(|m| m.is_dir()) {
            return Err(PlaceError::Clash);
        }
        if let Some(parent) = target.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| match e.kind() {
                    std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::NotADirectory => {
                        PlaceError::Clash
                    }
                    _ => PlaceError::Io(e),
                })?;
        }
        tokio::fs::rename(&self.partial, &target).await?;
        Ok(())
    }

    pub async fn abandon(self) {
        drop(self.file);
        let _ = tokio::fs::remove_file(&self.partial).await;
    }
}
