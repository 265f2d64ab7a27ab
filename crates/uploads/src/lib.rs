//! Reconciliation uploads (SPEC.md, "Reconciliation upload credentials" and "File upload
//! procedure"): Coffer hands out short-lived, signed browser-POST forms, and files are posted
//! straight to object storage with them, never through Coffer's API.
//!
//! - [`issue`] signs the form (an AWS SigV4 POST policy) for one key prefix.
//! - [`verify`] is the check Coffer's standalone store (`coffer dev`, objects in a local
//!   directory) makes on such a POST, so the same forms work with and without S3.
//! - [`list`], [`get`] and [`delete`] read the bucket in distributed mode.
//!
//! What the test store, s3s-fs 0.14.1 (scripts/s3.sh), was found to do with these forms:
//! - A good upload answers 204 with an empty body and no `ETag` or `Location` header; no
//!   `success_action_status` field is needed. With `success_action_status` 200 it answers 200,
//!   with 201 an XML `PostResponse` (that field then needs a policy condition like any other).
//! - It checks the signature (403 `SignatureDoesNotMatch`), the expiry (403 `AccessDenied`,
//!   refused once `now >= expiration`), every condition, and refuses form fields the policy
//!   does not name (403 `AccessDenied`). Field names match regardless of case.
//! - A failed `eq`/`starts-with` condition is 400 `InvalidPolicyDocument` there, where S3
//!   answers 403 `AccessDenied`; `verify` follows S3. Sizes outside `content-length-range`
//!   are 400 `EntityTooLarge` / `EntityTooSmall` in both.
//! - A field missing from the form counts as empty for `starts-with`, so a form without
//!   `X-Amz-Meta-Name` passes there; `verify` refuses it (see verify.rs).
//! - It signs and checks in whatever region the credential names.
//! - It keeps the file under `<root>/<bucket>/<key>`, and `X-Amz-Meta-Name` and
//!   `Content-Type` as the object's metadata.
//!
//! And about rust-s3 0.38: `Bucket::presign_post` reads the system clock, so `issue` builds
//! the document with its `PostPolicy` and signs it itself (issue.rs); `PostPolicyValue::Range`
//! is `u32`, which caps `max_bytes` at 4 GiB − 1; its TLS features would bring native-tls or
//! ring, so it is built without them (objects.rs, workspace Cargo.toml).

mod issue;
mod objects;
mod policy;
mod refusal;
mod sigv4;
mod store;
mod verify;

pub use issue::{
    FormAttributes, MAX_TTL, MAX_UPLOAD_BYTES, META_NAME_FIELD, UploadCredentials, UploadError,
    UploadInputs, issue,
};
pub use objects::{ObjectInfo, ObjectStoreError, delete, get, list};
pub use refusal::UploadRefusal;
pub use store::{Store, StoreConfigError};
pub use verify::{AcceptedUpload, UploadForm, verify};
