//! Reading and removing uploaded files in the bucket: what the reconciliation service does
//! in distributed mode, where uploads land in S3 rather than in the standalone store.

use std::sync::Once;

use s3::Bucket;
use s3::Region;
use s3::creds::Credentials;
use s3::error::S3Error;
use thiserror::Error;

use crate::store::Store;

/// An object in the bucket, as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    pub key: String,
    pub size: u64,
    /// The entity tag without the quotes S3 wraps it in; it changes when the content does.
    pub etag: Option<String>,
    /// When the object was written, as the store writes it; a new object under the same key
    /// has another.
    pub last_modified: String,
}

#[derive(Debug, Error)]
pub enum ObjectStoreError {
    #[error("no object {key:?} in the bucket")]
    NotFound { key: String },
    #[error("the object store answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error("could not talk to the object store")]
    Request(#[source] S3Error),
}

/// An error body is quoted in the error; this keeps a misbehaving store from filling logs.
const MAX_BODY_CHARS: usize = 1000;

/// Every object whose key starts with `prefix`, across all pages of the listing.
pub async fn list(store: &Store, prefix: &str) -> Result<Vec<ObjectInfo>, ObjectStoreError> {
    let pages = bucket(store)?
        .list(prefix.to_owned(), None)
        .await
        .map_err(|err| classify(err, None))?;
    Ok(pages
        .into_iter()
        .flat_map(|page| page.contents)
        .map(|object| ObjectInfo {
            key: object.key,
            size: object.size,
            etag: object.e_tag.as_deref().map(unquote),
            last_modified: object.last_modified,
        })
        .collect())
}

/// The content of one object.
pub async fn get(store: &Store, key: &str) -> Result<Vec<u8>, ObjectStoreError> {
    let response = bucket(store)?
        .get_object(key)
        .await
        .map_err(|err| classify(err, Some(key)))?;
    Ok(response.to_vec())
}

/// Removes one object; removing one that is not there succeeds, as in S3.
pub async fn delete(store: &Store, key: &str) -> Result<(), ObjectStoreError> {
    bucket(store)?
        .delete_object(key)
        .await
        .map_err(|err| classify(err, Some(key)))?;
    Ok(())
}

/// S3 sends entity tags as quoted strings (`"9b2c…"`, or `W/"…"` from some stores).
fn unquote(tag: &str) -> String {
    tag.trim_start_matches("W/").trim_matches('"').to_owned()
}

fn bucket(store: &Store) -> Result<Box<Bucket>, ObjectStoreError> {
    install_tls_provider();
    let credentials = Credentials::new(
        Some(store.access_key()),
        Some(store.secret_key()),
        store.session_token(),
        None,
        None,
    )
    .map_err(|err| ObjectStoreError::Request(S3Error::Credentials(err)))?;
    let region = Region::Custom {
        region: store.region().to_owned(),
        endpoint: store.endpoint_base().to_owned(),
    };
    let bucket = Bucket::new(store.bucket(), region, credentials)
        .map_err(ObjectStoreError::Request)?
        .with_path_style();
    Ok(bucket)
}

/// rust-s3's HTTP client is built with rustls but no crypto provider of its own (see the
/// workspace Cargo.toml), and takes the process default; without one it would panic while
/// building the client. aws-lc-rs is the provider the rest of Coffer uses. Installing fails
/// harmlessly when a default is already there, which the client then uses.
fn install_tls_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _already_installed = rustls::crypto::aws_lc_rs::default_provider().install_default();
    });
}

/// `key` is the object asked for; a listing has none, and its 404 means a missing bucket.
fn classify(err: S3Error, key: Option<&str>) -> ObjectStoreError {
    match (err, key) {
        (S3Error::HttpFailWithBody(404, body), Some(key))
            if body.is_empty() || body.contains("NoSuchKey") =>
        {
            ObjectStoreError::NotFound {
                key: key.to_owned(),
            }
        }
        (S3Error::HttpFailWithBody(status, body), _) => ObjectStoreError::Status {
            status,
            body: body.chars().take(MAX_BODY_CHARS).collect(),
        },
        (other, _) => ObjectStoreError::Request(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_tags_lose_their_quotes() {
        assert_eq!(unquote("\"5d41402a\""), "5d41402a");
        assert_eq!(unquote("W/\"5d41402a\""), "5d41402a");
        assert_eq!(unquote("5d41402a"), "5d41402a");
    }

    #[test]
    fn a_missing_object_is_not_found_but_a_missing_bucket_is_an_answer() {
        let missing =
            || S3Error::HttpFailWithBody(404, "<Error><Code>NoSuchKey</Code></Error>".into());
        assert!(matches!(
            classify(missing(), Some("k")),
            ObjectStoreError::NotFound { key } if key == "k"
        ));
        assert!(matches!(
            classify(missing(), None),
            ObjectStoreError::Status { status: 404, .. }
        ));
        let no_bucket = S3Error::HttpFailWithBody(404, "<Code>NoSuchBucket</Code>".into());
        assert!(matches!(
            classify(no_bucket, Some("k")),
            ObjectStoreError::Status { status: 404, .. }
        ));
    }
}
