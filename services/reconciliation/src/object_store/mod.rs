//! Where uploaded files land: an S3-compatible bucket, or (standalone) a directory that
//! Coffer itself serves the browser-POST protocol for. Both sign and check the same
//! policies (coffer-uploads); only listing, reading and removing differ. It stands below
//! every feature: the state holds it, and `uploads/` uses it.

pub mod local;

use std::path::{Path, PathBuf};

use coffer_uploads::{ObjectInfo, ObjectStoreError, Store};

/// The bucket `coffer dev` serves uploads for, at `/<bucket>` on its own address.
pub const LOCAL_BUCKET: &str = "reconciliation-uploads";

#[derive(Clone, Debug)]
pub enum ObjectStore {
    /// Distributed mode: any S3-compatible store, path-style.
    S3(Store),
    /// `coffer dev`: objects are files under `root/<bucket>/<key>`; `signer` is the
    /// store's own key pair, whose endpoint is Coffer's address.
    Local { root: PathBuf, signer: Store },
}

#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    #[error(transparent)]
    S3(#[from] ObjectStoreError),
    #[error("the upload directory: {0}")]
    Io(#[from] std::io::Error),
}

impl ObjectStore {
    /// The store whose key signs upload policies.
    pub fn signer(&self) -> &Store {
        match self {
            ObjectStore::S3(store) => store,
            ObjectStore::Local { signer, .. } => signer,
        }
    }

    /// The directory of a local store's bucket.
    pub fn bucket_dir(root: &Path, signer: &Store) -> PathBuf {
        root.join(signer.bucket())
    }

    /// Every object under `prefix` (a directory-like prefix ending in `/`).
    pub async fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>, ObjectError> {
        match self {
            ObjectStore::S3(store) => Ok(coffer_uploads::list(store, prefix).await?),
            ObjectStore::Local { root, signer } => {
                let base = Self::bucket_dir(root, signer);
                let prefix = prefix.to_owned();
                tokio::task::spawn_blocking(move || local::list(&base, &prefix))
                    .await
                    .map_err(|e| ObjectError::Io(std::io::Error::other(e)))?
                    .map_err(ObjectError::Io)
            }
        }
    }

    pub async fn get(&self, key: &str) -> Result<Vec<u8>, ObjectError> {
        match self {
            ObjectStore::S3(store) => Ok(coffer_uploads::get(store, key).await?),
            ObjectStore::Local { root, signer } => {
                Ok(tokio::fs::read(Self::bucket_dir(root, signer).join(key)).await?)
            }
        }
    }

    /// Removes an object once its file has been read; one already gone is no error.
    pub async fn delete(&self, key: &str) -> Result<(), ObjectError> {
        match self {
            ObjectStore::S3(store) => Ok(coffer_uploads::delete(store, key).await?),
            ObjectStore::Local { root, signer } => {
                match tokio::fs::remove_file(Self::bucket_dir(root, signer).join(key)).await {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
                    _ => Ok(()),
                }
            }
        }
    }
}
