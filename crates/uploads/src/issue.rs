//! Upload credentials: a signed browser-POST policy that lets a caller put files under one
//! key prefix of the bucket, for a few minutes, without holding any key of Coffer's.
//!
//! The policy document is built with rust-s3's `PostPolicy`, but signed here rather than by
//! `Bucket::presign_post`: that one reads the system clock for `X-Amz-Date` and the signing
//! key (and a second time for a relative expiry), so the credentials could not follow the
//! injected `now` that test clocks and the expiry in the response depend on. Signing a POST
//! policy is only the SigV4 key chain over the base64 document (`sigv4.rs`).

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use s3::creds::Rfc3339OffsetDateTime;
use s3::{PostPolicy, PostPolicyField, PostPolicyValue};
use serde::{Deserialize, Serialize};
use thiserror::Error;
use time::{Duration, OffsetDateTime, UtcOffset};

use crate::sigv4;
use crate::store::Store;

/// SigV4 signing keys are only good for seven days after their date, so a policy meant to
/// outlive that could not be honoured by S3 anyway.
pub const MAX_TTL: Duration = Duration::days(7);

/// rust-s3's `PostPolicyValue::Range` holds `u32`s, which caps one upload at 4 GiB − 1 byte.
pub const MAX_UPLOAD_BYTES: u64 = u32::MAX as u64;

/// The form field that names the uploaded file (S3 stores it as user metadata `name`).
pub const META_NAME_FIELD: &str = "X-Amz-Meta-Name";

/// What the credentials endpoint returns (SPEC.md, "Reconciliation upload credentials").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadCredentials {
    pub inputs: UploadInputs,
    pub attributes: FormAttributes,
    /// Unix seconds after which the store refuses the form.
    pub expires_at: i64,
}

/// The form fields to copy into the upload, under S3's names. `key` is the prefix: the
/// client appends a slash and the file name.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadInputs {
    pub key: String,
    #[serde(
        rename = "X-Amz-Security-Token",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub security_token: Option<String>,
    #[serde(rename = "X-Amz-Credential")]
    pub credential: String,
    #[serde(rename = "X-Amz-Algorithm")]
    pub algorithm: String,
    #[serde(rename = "X-Amz-Date")]
    pub date: String,
    #[serde(rename = "Policy")]
    pub policy: String,
    #[serde(rename = "X-Amz-Signature")]
    pub signature: String,
}

// A session token is a bearer credential of the store's own; it stays out of logs.
impl fmt::Debug for UploadInputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UploadInputs")
            .field("key", &self.key)
            .field(
                "security_token",
                &self.security_token.as_ref().map(|_| "[redacted]"),
            )
            .field("credential", &self.credential)
            .field("algorithm", &self.algorithm)
            .field("date", &self.date)
            .field("policy", &self.policy)
            .field("signature", &self.signature)
            .finish()
    }
}

/// How to send the form: the attributes of an HTML `<form>` that would post it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormAttributes {
    pub action: String,
    pub method: String,
    pub enctype: String,
}

#[derive(Debug, Error)]
pub enum UploadError {
    #[error("the key prefix {prefix:?} cannot be used: {reason}")]
    KeyPrefix {
        prefix: String,
        reason: &'static str,
    },
    #[error("upload credentials must last between one second and seven days, not {ttl}")]
    Ttl { ttl: Duration },
    #[error(
        "the upload size limit must be between 1 and {MAX_UPLOAD_BYTES} bytes, not {max_bytes}"
    )]
    MaxBytes { max_bytes: u64 },
    #[error("{now} plus {ttl} is not a representable time")]
    Expiry { now: OffsetDateTime, ttl: Duration },
    #[error("could not build the upload policy")]
    Policy(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Signs a policy under which any number of files may be posted until `now + ttl`, each to
/// a key under `key_prefix/`, of 1 to `max_bytes` bytes, with its name (`X-Amz-Meta-Name`)
/// and a `Content-Type`.
pub fn issue(
    store: &Store,
    key_prefix: &str,
    now: OffsetDateTime,
    ttl: Duration,
    max_bytes: u64,
) -> Result<UploadCredentials, UploadError> {
    check_prefix(key_prefix)?;
    if ttl < Duration::SECOND || ttl > MAX_TTL {
        return Err(UploadError::Ttl { ttl });
    }
    let range_max = u32::try_from(max_bytes)
        .ok()
        .filter(|max| *max >= 1)
        .ok_or(UploadError::MaxBytes { max_bytes })?;
    // X-Amz-Date has whole seconds in UTC; the expiry in the response is whole seconds too.
    let now = now
        .to_offset(UtcOffset::UTC)
        .replace_nanosecond(0)
        .map_err(|err| UploadError::Policy(Box::new(err)))?;
    let expires = now
        .checked_add(ttl)
        .ok_or(UploadError::Expiry { now, ttl })?;

    let date = sigv4::amz_date(now).map_err(|err| UploadError::Policy(Box::new(err)))?;
    let scope_date = sigv4::scope_date(now).map_err(|err| UploadError::Policy(Box::new(err)))?;
    let credential = sigv4::credential(store.access_key(), &scope_date, store.region());
    let security_token = store.session_token().map(str::to_owned);

    let policy = policy_document(
        store,
        key_prefix,
        expires,
        range_max,
        &credential,
        &date,
        security_token.as_deref(),
    )?;
    let signing_key = sigv4::signing_key(store.secret_key(), &scope_date, store.region());
    let signature = sigv4::sign_policy(&signing_key, &policy);

    Ok(UploadCredentials {
        inputs: UploadInputs {
            key: key_prefix.to_owned(),
            security_token,
            credential,
            algorithm: sigv4::ALGORITHM.to_owned(),
            date,
            policy,
            signature,
        },
        attributes: FormAttributes {
            action: store.bucket_url(),
            method: "POST".to_owned(),
            enctype: "multipart/form-data".to_owned(),
        },
        expires_at: expires.unix_timestamp(),
    })
}

/// The base64 policy: one condition for every field SPEC.md's upload procedure sends
/// (S3 refuses a form field the policy does not name), plus the bucket and the size.
fn policy_document(
    store: &Store,
    key_prefix: &str,
    expires: OffsetDateTime,
    max_bytes: u32,
    credential: &str,
    date: &str,
    security_token: Option<&str>,
) -> Result<String, UploadError> {
    let policy_error = |err: s3::error::S3Error| UploadError::Policy(Box::new(err));
    let mut policy = PostPolicy::new(Rfc3339OffsetDateTime(expires))
        .condition(
            PostPolicyField::Bucket,
            PostPolicyValue::Exact(Cow::Borrowed(store.bucket())),
        )
        .map_err(policy_error)?
        .condition(
            PostPolicyField::Key,
            PostPolicyValue::StartsWith(Cow::Owned(format!("{key_prefix}/"))),
        )
        .map_err(policy_error)?
        .condition(
            PostPolicyField::AmzMeta(Cow::Borrowed("name")),
            PostPolicyValue::Anything,
        )
        .map_err(policy_error)?
        .condition(PostPolicyField::ContentType, PostPolicyValue::Anything)
        .map_err(policy_error)?
        .condition(
            PostPolicyField::ContentLengthRange,
            PostPolicyValue::Range(1, max_bytes),
        )
        .map_err(policy_error)?
        .condition(
            PostPolicyField::AmzCredential,
            PostPolicyValue::Exact(Cow::Borrowed(credential)),
        )
        .map_err(policy_error)?
        .condition(
            PostPolicyField::AmzAlgorithm,
            PostPolicyValue::Exact(Cow::Borrowed(sigv4::ALGORITHM)),
        )
        .map_err(policy_error)?
        .condition(
            PostPolicyField::AmzDate,
            PostPolicyValue::Exact(Cow::Borrowed(date)),
        )
        .map_err(policy_error)?;
    if let Some(token) = security_token {
        policy = policy
            .condition(
                PostPolicyField::AmzSecurityToken,
                PostPolicyValue::Exact(Cow::Borrowed(token)),
            )
            .map_err(policy_error)?;
    }
    let json = serde_json::to_vec(&policy).map_err(|err| UploadError::Policy(Box::new(err)))?;
    Ok(STANDARD.encode(json))
}

/// The prefix becomes `starts-with $key "<prefix>/"`, and the standalone store turns keys
/// into paths, so it has to be a plain relative path.
fn check_prefix(prefix: &str) -> Result<(), UploadError> {
    let refuse = |reason| {
        Err(UploadError::KeyPrefix {
            prefix: prefix.to_owned(),
            reason,
        })
    };
    if prefix.is_empty() {
        return refuse("it is empty");
    }
    if prefix.starts_with('/') || prefix.ends_with('/') {
        return refuse("it starts or ends with a slash");
    }
    if prefix
        .split('/')
        .any(|part| matches!(part, "" | "." | ".."))
    {
        return refuse("it has an empty, `.` or `..` segment");
    }
    if prefix.chars().any(|c| c.is_control() || c == '\\') {
        return refuse("it contains a control character or a backslash");
    }
    // S3 would substitute `${filename}` in keys; Coffer's keys are literal.
    if prefix.contains("${") {
        return refuse("it contains `${`");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use time::macros::datetime;
    use url::Url;

    fn store() -> Store {
        Store::new(
            Url::parse("http://127.0.0.1:19000").unwrap(),
            "coffer-test",
            "us-east-1",
            "AKID",
            "SECRET",
        )
        .unwrap()
    }

    fn decoded_policy(credentials: &UploadCredentials) -> Value {
        serde_json::from_slice(&STANDARD.decode(&credentials.inputs.policy).unwrap()).unwrap()
    }

    #[test]
    fn the_policy_covers_every_field_of_the_upload_procedure() {
        let now = datetime!(2026-11-26 10:15:00.75 +01:00);
        let credentials = issue(&store(), "sources/abc", now, Duration::minutes(5), 1000).unwrap();
        assert_eq!(
            decoded_policy(&credentials),
            json!({
                "expiration": "2026-11-26T09:20:00Z",
                "conditions": [
                    {"bucket": "coffer-test"},
                    ["starts-with", "$key", "sources/abc/"],
                    ["starts-with", "$x-amz-meta-name", ""],
                    ["starts-with", "$Content-Type", ""],
                    ["content-length-range", 1, 1000],
                    {"x-amz-credential": "AKID/20261126/us-east-1/s3/aws4_request"},
                    {"x-amz-algorithm": "AWS4-HMAC-SHA256"},
                    {"x-amz-date": "20261126T091500Z"},
                ]
            })
        );
        assert_eq!(
            credentials.expires_at,
            datetime!(2026-11-26 09:20:00 UTC).unix_timestamp()
        );
    }

    #[test]
    fn the_response_has_the_documented_shape() {
        let now = datetime!(2026-11-26 09:15:00 UTC);
        let credentials = issue(&store(), "p", now, Duration::minutes(5), 10).unwrap();
        let text = serde_json::to_string(&credentials).unwrap();
        // The fields in the order of SPEC.md's table (serde_json's Value would sort them).
        let positions: Vec<usize> = [
            r#""key":"p""#,
            r#""X-Amz-Credential":"#,
            r#""X-Amz-Algorithm":"AWS4-HMAC-SHA256""#,
            r#""X-Amz-Date":"20261126T091500Z""#,
            r#""Policy":"#,
            r#""X-Amz-Signature":"#,
        ]
        .iter()
        .map(|field| {
            text.find(field)
                .unwrap_or_else(|| panic!("{field} in {text}"))
        })
        .collect();
        assert!(positions.is_sorted(), "{text}");
        assert!(!text.contains("Security-Token"), "{text}");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["inputs"].as_object().unwrap().len(), 6);
        assert_eq!(
            value["attributes"],
            json!({"action": "http://127.0.0.1:19000/coffer-test", "method": "POST", "enctype": "multipart/form-data"})
        );
        assert_eq!(value["expires_at"], json!(now.unix_timestamp() + 300));
    }

    #[test]
    fn a_session_token_is_sent_and_signed() {
        let store = store().with_session_token("TOKEN");
        let now = datetime!(2026-11-26 09:15:00 UTC);
        let credentials = issue(&store, "p", now, Duration::minutes(5), 10).unwrap();
        assert_eq!(credentials.inputs.security_token.as_deref(), Some("TOKEN"));
        let conditions = decoded_policy(&credentials)["conditions"].clone();
        assert!(
            conditions
                .as_array()
                .unwrap()
                .contains(&json!({"x-amz-security-token": "TOKEN"}))
        );
        let value = serde_json::to_value(&credentials).unwrap();
        assert_eq!(value["inputs"]["X-Amz-Security-Token"], json!("TOKEN"));
        assert!(!format!("{:?}", credentials.inputs).contains("TOKEN"));
    }

    #[test]
    fn bad_arguments_are_refused() {
        let now = datetime!(2026-11-26 09:15:00 UTC);
        let five = Duration::minutes(5);
        for prefix in ["", "/a", "a/", "a//b", "a/../b", "a/${filename}", "a\\b"] {
            assert!(
                matches!(
                    issue(&store(), prefix, now, five, 10),
                    Err(UploadError::KeyPrefix { .. })
                ),
                "{prefix:?}"
            );
        }
        assert!(matches!(
            issue(&store(), "p", now, Duration::ZERO, 10),
            Err(UploadError::Ttl { .. })
        ));
        assert!(matches!(
            issue(&store(), "p", now, Duration::days(8), 10),
            Err(UploadError::Ttl { .. })
        ));
        assert!(matches!(
            issue(&store(), "p", now, five, 0),
            Err(UploadError::MaxBytes { .. })
        ));
        assert!(matches!(
            issue(&store(), "p", now, five, MAX_UPLOAD_BYTES + 1),
            Err(UploadError::MaxBytes { .. })
        ));
        assert!(issue(&store(), "p", now, five, MAX_UPLOAD_BYTES).is_ok());
    }
}
