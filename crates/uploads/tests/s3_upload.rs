//! Credentials from `issue`, used by an HTTP client against a real S3-compatible store
//! (s3s-fs from scripts/s3.sh), and the bucket read back through `list`, `get` and `delete`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_uploads::{
    ObjectStoreError, UploadCredentials, UploadForm, delete, get, issue, list, verify,
};
use time::{Duration, OffsetDateTime};

use common::{post_form, s3_store, spec_fields, unique_prefix};

const MAX_BYTES: u64 = 64 * 1024;
const FIVE_MINUTES: Duration = Duration::minutes(5);

#[tokio::test]
async fn an_upload_as_the_spec_describes_is_kept_and_can_be_read_back() {
    let store = s3_store();
    let prefix = unique_prefix("upload");
    let credentials = issue(
        &store,
        &prefix,
        OffsetDateTime::now_utc(),
        FIVE_MINUTES,
        MAX_BYTES,
    )
    .unwrap();
    let content = b"<Document>camt.053</Document>\n";

    let fields = spec_fields(&credentials, "statement.xml");
    let response = post_form(&credentials, &fields, "statement.xml", content).await;
    assert_eq!(response.status, 204, "{response:?}");
    assert_eq!(response.body, "");

    let key = format!("{prefix}/statement.xml");
    let listed = list(&store, &format!("{prefix}/")).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].key, key);
    assert_eq!(listed[0].size, content.len() as u64);
    // s3s-fs leaves the ETag out of listings (see lib.rs); S3 sends it quoted.
    if let Some(etag) = &listed[0].etag {
        assert!(!etag.contains('"'), "{etag}");
    }
    assert_eq!(get(&store, &key).await.unwrap(), content);

    delete(&store, &key).await.unwrap();
    assert!(list(&store, &prefix).await.unwrap().is_empty());
    assert!(matches!(
        get(&store, &key).await,
        Err(ObjectStoreError::NotFound { key: missing }) if missing == key
    ));
    // As in S3, removing what is not there is not an error.
    delete(&store, &key).await.unwrap();
}

#[tokio::test]
async fn expired_credentials_are_refused() {
    let store = s3_store();
    let prefix = unique_prefix("expired");
    let issued_at = OffsetDateTime::now_utc() - Duration::minutes(10);
    let credentials = issue(&store, &prefix, issued_at, FIVE_MINUTES, MAX_BYTES).unwrap();

    let fields = spec_fields(&credentials, "late.xml");
    let response = post_form(&credentials, &fields, "late.xml", b"late").await;
    assert_eq!(response.status, 403, "{response:?}");
    assert_eq!(response.error_code(), Some("AccessDenied"), "{response:?}");
    assert!(list(&store, &prefix).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_key_outside_the_prefix_is_refused() {
    let store = s3_store();
    let prefix = unique_prefix("outside");
    let credentials = issue(
        &store,
        &prefix,
        OffsetDateTime::now_utc(),
        FIVE_MINUTES,
        MAX_BYTES,
    )
    .unwrap();
    let elsewhere = unique_prefix("elsewhere");

    let mut fields = spec_fields(&credentials, "a.xml");
    fields[0].1 = format!("{elsewhere}/a.xml");
    let response = post_form(&credentials, &fields, "a.xml", b"data").await;
    // S3 says 403 AccessDenied here; s3s-fs says 400 InvalidPolicyDocument (see lib.rs).
    assert_eq!(response.status, 400, "{response:?}");
    assert_eq!(
        response.error_code(),
        Some("InvalidPolicyDocument"),
        "{response:?}"
    );
    assert!(list(&store, &elsewhere).await.unwrap().is_empty());

    // A prefix that only shares the beginning of the name is outside too.
    fields[0].1 = format!("{prefix}-sibling/a.xml");
    let response = post_form(&credentials, &fields, "a.xml", b"data").await;
    assert_eq!(
        response.error_code(),
        Some("InvalidPolicyDocument"),
        "{response:?}"
    );
}

#[tokio::test]
async fn a_file_over_the_limit_is_refused() {
    let store = s3_store();
    let prefix = unique_prefix("too-large");
    let credentials = issue(
        &store,
        &prefix,
        OffsetDateTime::now_utc(),
        FIVE_MINUTES,
        1000,
    )
    .unwrap();

    let fields = spec_fields(&credentials, "big.xml");
    let at_limit = post_form(&credentials, &fields, "big.xml", &[b'x'; 1000]).await;
    assert_eq!(at_limit.status, 204, "{at_limit:?}");
    let over = post_form(&credentials, &fields, "big.xml", &[b'x'; 1001]).await;
    assert_eq!(over.status, 400, "{over:?}");
    assert_eq!(over.error_code(), Some("EntityTooLarge"), "{over:?}");
    let empty = post_form(&credentials, &fields, "big.xml", b"").await;
    assert_eq!(empty.error_code(), Some("EntityTooSmall"), "{empty:?}");

    let listed = list(&store, &prefix).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].size, 1000,
        "the refused uploads must not replace the kept one"
    );
    delete(&store, &listed[0].key).await.unwrap();
}

type Case<'a> = (
    &'a str,
    &'a UploadCredentials,
    Vec<(String, String)>,
    usize,
    bool,
);

/// The same forms, posted to s3s-fs and given to `verify`: the standalone store has to take
/// what S3 takes and refuse what it refuses.
#[tokio::test]
async fn the_store_and_verify_agree_on_which_forms_to_take() {
    let store = s3_store();
    let prefix = unique_prefix("agree");
    let now = OffsetDateTime::now_utc();
    let fresh = issue(&store, &prefix, now, FIVE_MINUTES, 100).unwrap();
    let stale = issue(
        &store,
        &prefix,
        now - Duration::minutes(10),
        FIVE_MINUTES,
        100,
    )
    .unwrap();

    let good = spec_fields(&fresh, "a.xml");
    let mut outside = good.clone();
    outside[0].1 = "elsewhere/a.xml".to_owned();
    let mut forged = good.clone();
    forged[3].1 = forged[3].1.replace(|c: char| c.is_ascii_digit(), "0");
    let mut extra = good.clone();
    extra.push(("X-Amz-Meta-Other".to_owned(), "x".to_owned()));
    let mut lowercase = good.clone();
    for (name, _) in &mut lowercase {
        *name = name.to_ascii_lowercase();
    }

    // (case, credentials, fields, file length, whether S3 would take it)
    let cases: [Case<'_>; 7] = [
        ("as the spec says", &fresh, good.clone(), 10, true),
        ("names in lowercase", &fresh, lowercase, 10, true),
        ("expired", &stale, spec_fields(&stale, "a.xml"), 10, false),
        ("outside the prefix", &fresh, outside, 10, false),
        ("forged signature", &fresh, forged, 10, false),
        ("a field the policy does not name", &fresh, extra, 10, false),
        ("over the limit", &fresh, good, 101, false),
    ];
    for (case, credentials, fields, len, expected) in cases {
        let content = vec![b'x'; len];
        let response = post_form(credentials, &fields, "a.xml", &content).await;
        let verdict = verify(
            &store,
            &UploadForm {
                fields: fields.clone(),
                file_len: len as u64,
            },
            OffsetDateTime::now_utc(),
        );
        assert_eq!(
            response.status == 204,
            expected,
            "{case}: the store answered {response:?}"
        );
        assert_eq!(verdict.is_ok(), expected, "{case}: verify said {verdict:?}");
        if let (Err(refusal), Some(code)) = (&verdict, response.error_code()) {
            // s3s-fs reports a failed condition as InvalidPolicyDocument (see lib.rs).
            if code != "InvalidPolicyDocument" {
                assert_eq!(refusal.code(), code, "{case}: {refusal}");
            }
        }
    }
    for object in list(&store, &prefix).await.unwrap() {
        delete(&store, &object.key).await.unwrap();
    }
}
