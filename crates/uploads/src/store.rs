//! Where uploaded files go: an S3-compatible bucket, addressed path-style, and the keys that
//! sign for it.

use std::fmt;

use thiserror::Error;
use url::Url;
use zeroize::Zeroizing;

/// An S3-compatible bucket and the credentials Coffer holds for it.
///
/// Addresses are always path-style (`{endpoint}/{bucket}/{key}`): it works with every
/// S3-compatible store and with Coffer's own standalone store, which has no wildcard DNS.
#[derive(Clone)]
pub struct Store {
    endpoint: Url,
    bucket: String,
    region: String,
    access_key: String,
    secret_key: Zeroizing<String>,
    session_token: Option<Zeroizing<String>>,
}

/// Why a [`Store`] could not be described.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum StoreConfigError {
    #[error("the object store endpoint {endpoint} must be an http or https URL")]
    EndpointScheme { endpoint: String },
    #[error(
        "the object store endpoint {endpoint} must be scheme, host and port only (no path, query \
         or user info): the bucket goes in the path"
    )]
    EndpointNotBare { endpoint: String },
    #[error("the bucket name {bucket:?} is not a valid S3 bucket name")]
    Bucket { bucket: String },
    #[error("the object store {field} must not be empty")]
    Empty { field: &'static str },
}

impl Store {
    /// Describes a bucket. The endpoint is the store's base URL, e.g. `https://s3.eu-west-1.amazonaws.com`
    /// or `http://127.0.0.1:19000`.
    pub fn new(
        endpoint: Url,
        bucket: impl Into<String>,
        region: impl Into<String>,
        access_key: impl Into<String>,
        secret_key: impl Into<String>,
    ) -> Result<Self, StoreConfigError> {
        let bucket = bucket.into();
        let region = region.into();
        let access_key = access_key.into();
        let secret_key = Zeroizing::new(secret_key.into());
        if !matches!(endpoint.scheme(), "http" | "https") {
            return Err(StoreConfigError::EndpointScheme {
                endpoint: endpoint.to_string(),
            });
        }
        // rust-s3 builds request URLs from the host alone, so a path here would make the
        // upload form's action and the listing disagree about where the bucket is.
        if endpoint.path() != "/"
            || endpoint.query().is_some()
            || endpoint.fragment().is_some()
            || !endpoint.username().is_empty()
            || endpoint.password().is_some()
            || endpoint.host_str().is_none()
        {
            return Err(StoreConfigError::EndpointNotBare {
                endpoint: endpoint.to_string(),
            });
        }
        if !valid_bucket_name(&bucket) {
            return Err(StoreConfigError::Bucket { bucket });
        }
        for (field, value) in [
            ("region", region.as_str()),
            ("access key", access_key.as_str()),
            ("secret key", secret_key.as_str()),
        ] {
            if value.is_empty() {
                return Err(StoreConfigError::Empty { field });
            }
        }
        Ok(Self {
            endpoint,
            bucket,
            region,
            access_key,
            secret_key,
            session_token: None,
        })
    }

    /// Adds the session token that temporary credentials (STS, instance roles) come with;
    /// uploads then have to present it too.
    #[must_use]
    pub fn with_session_token(mut self, token: impl Into<String>) -> Self {
        self.session_token = Some(Zeroizing::new(token.into()));
        self
    }

    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    pub fn region(&self) -> &str {
        &self.region
    }

    pub fn access_key(&self) -> &str {
        &self.access_key
    }

    pub(crate) fn secret_key(&self) -> &str {
        &self.secret_key
    }

    pub(crate) fn session_token(&self) -> Option<&str> {
        self.session_token.as_deref().map(String::as_str)
    }

    /// The endpoint without its trailing slash, as rust-s3 wants it.
    pub(crate) fn endpoint_base(&self) -> &str {
        self.endpoint.as_str().trim_end_matches('/')
    }

    /// The path-style address of the bucket: where browser uploads are posted.
    pub fn bucket_url(&self) -> String {
        format!("{}/{}", self.endpoint_base(), self.bucket)
    }
}

// The secret key and the session token stay out of logs.
impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("endpoint", &self.endpoint.as_str())
            .field("bucket", &self.bucket)
            .field("region", &self.region)
            .field("access_key", &self.access_key)
            .field("secret_key", &"[redacted]")
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "[redacted]"),
            )
            .finish()
    }
}

/// S3's rules for new buckets: 3 to 63 characters of lowercase letters, digits, dots and
/// hyphens, starting and ending with a letter or digit. A name outside them could not be
/// addressed the same way by every store.
fn valid_bucket_name(bucket: &str) -> bool {
    let bytes = bucket.as_bytes();
    (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-'))
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && !bucket.contains("..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn the_bucket_url_is_path_style() {
        let store = Store::new(
            url("http://127.0.0.1:19000"),
            "coffer-test",
            "us-east-1",
            "a",
            "s",
        )
        .unwrap();
        assert_eq!(store.bucket_url(), "http://127.0.0.1:19000/coffer-test");
    }

    #[test]
    fn an_endpoint_with_a_path_is_refused() {
        let err = Store::new(url("https://example.test/s3/"), "bucket", "r", "a", "s").unwrap_err();
        assert!(matches!(err, StoreConfigError::EndpointNotBare { .. }));
    }

    #[test]
    fn bucket_names_follow_s3_rules() {
        for bad in ["ab", "Upper", "-start", "end-", "a..b", "under_score"] {
            assert!(!valid_bucket_name(bad), "{bad}");
        }
        for good in ["abc", "coffer-test", "my.bucket.1"] {
            assert!(valid_bucket_name(good), "{good}");
        }
    }

    #[test]
    fn debug_hides_the_secrets() {
        let store = Store::new(url("http://h:1"), "bucket", "r", "access", "very-secret")
            .unwrap()
            .with_session_token("token-secret");
        let shown = format!("{store:?}");
        assert!(
            !shown.contains("very-secret") && !shown.contains("token-secret"),
            "{shown}"
        );
        assert!(shown.contains("access"));
    }
}
