//! `verify` on forms built from `issue`'s credentials as SPEC.md's procedure builds them: the
//! standalone store must take what Coffer issued and nothing else. No server is involved.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use coffer_uploads::{
    AcceptedUpload, Store, UploadCredentials, UploadForm, UploadRefusal, issue, verify,
};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use url::Url;

use common::spec_fields;

const ISSUED_AT: OffsetDateTime = datetime!(2026-11-26 09:15:00 UTC);
const PREFIX: &str = "reconciliation/sources/7f1c";

fn store() -> Store {
    Store::new(
        Url::parse("http://127.0.0.1:8080").unwrap(),
        "coffer-uploads",
        "local",
        "coffer",
        "a-secret-only-the-store-knows",
    )
    .unwrap()
}

fn credentials() -> UploadCredentials {
    issue(&store(), PREFIX, ISSUED_AT, Duration::minutes(5), 1000).unwrap()
}

fn form(fields: Vec<(String, String)>, file_len: u64) -> UploadForm {
    UploadForm { fields, file_len }
}

fn field_mut<'a>(fields: &'a mut [(String, String)], name: &str) -> &'a mut String {
    &mut fields
        .iter_mut()
        .find(|(field, _)| field == name)
        .unwrap_or_else(|| panic!("no field {name}"))
        .1
}

#[test]
fn a_form_built_as_the_spec_says_is_accepted() {
    let fields = spec_fields(&credentials(), "camt053.xml");
    let accepted = verify(
        &store(),
        &form(fields, 512),
        ISSUED_AT + Duration::minutes(4),
    )
    .unwrap();
    assert_eq!(
        accepted,
        AcceptedUpload {
            key: format!("{PREFIX}/camt053.xml"),
            name: Some("camt053.xml".to_owned()),
            content_type: Some("xml".to_owned()),
            size: 512,
        }
    );
}

#[test]
fn field_names_match_whatever_their_case() {
    let mut fields = spec_fields(&credentials(), "a.xml");
    for (name, _) in &mut fields {
        *name = name.to_ascii_uppercase();
    }
    assert!(verify(&store(), &form(fields, 1), ISSUED_AT).is_ok());
}

#[test]
fn credentials_expire_after_their_time_to_live() {
    let fields = spec_fields(&credentials(), "a.xml");
    let expires_at = OffsetDateTime::from_unix_timestamp(credentials().expires_at).unwrap();
    assert_eq!(expires_at, ISSUED_AT + Duration::minutes(5));
    assert!(
        verify(
            &store(),
            &form(fields.clone(), 1),
            expires_at - Duration::SECOND
        )
        .is_ok()
    );
    let refusal = verify(&store(), &form(fields, 1), expires_at).unwrap_err();
    assert_eq!(
        refusal,
        UploadRefusal::Expired {
            expiration: "2026-11-26T09:20:00Z".to_owned()
        }
    );
    assert_eq!((refusal.code(), refusal.status()), ("AccessDenied", 403));
}

#[test]
fn a_key_outside_the_prefix_is_refused() {
    for key in [
        "elsewhere/a.xml".to_owned(),
        format!("{PREFIX}-sibling/a.xml"),
        PREFIX.to_owned(),
    ] {
        let mut fields = spec_fields(&credentials(), "a.xml");
        *field_mut(&mut fields, "key") = key.clone();
        let refusal = verify(&store(), &form(fields, 1), ISSUED_AT).unwrap_err();
        assert_eq!(
            refusal,
            UploadRefusal::ConditionFailed {
                condition: format!(r#"["starts-with","$key","{PREFIX}/"]"#)
            },
            "{key}"
        );
        assert_eq!(refusal.code(), "AccessDenied");
    }
}

#[test]
fn the_size_must_be_within_the_limit() {
    let fields = spec_fields(&credentials(), "a.xml");
    assert!(verify(&store(), &form(fields.clone(), 1000), ISSUED_AT).is_ok());
    assert_eq!(
        verify(&store(), &form(fields.clone(), 1001), ISSUED_AT),
        Err(UploadRefusal::EntityTooLarge {
            size: 1001,
            max: 1000
        })
    );
    assert_eq!(
        verify(&store(), &form(fields, 0), ISSUED_AT),
        Err(UploadRefusal::EntityTooSmall { size: 0, min: 1 })
    );
}

#[test]
fn a_tampered_signature_is_refused() {
    let mut fields = spec_fields(&credentials(), "a.xml");
    let signature = field_mut(&mut fields, "X-Amz-Signature");
    let last = if signature.ends_with('0') { "1" } else { "0" };
    signature.replace_range(signature.len() - 1.., last);
    let refusal = verify(&store(), &form(fields, 1), ISSUED_AT).unwrap_err();
    assert_eq!(refusal, UploadRefusal::SignatureDoesNotMatch);
    assert_eq!(refusal.status(), 403);
}

#[test]
fn a_tampered_policy_is_refused() {
    // Widening the prefix and the size, as an attacker would, breaks the signature.
    let credentials = credentials();
    let document = String::from_utf8(STANDARD.decode(&credentials.inputs.policy).unwrap()).unwrap();
    let widened = document
        .replace(&format!("{PREFIX}/"), "")
        .replace("1000]", "1000000000]");
    assert_ne!(widened, document);
    let mut fields = spec_fields(&credentials, "a.xml");
    *field_mut(&mut fields, "Policy") = STANDARD.encode(widened);
    *field_mut(&mut fields, "key") = "anywhere.xml".to_owned();
    assert_eq!(
        verify(&store(), &form(fields, 5000), ISSUED_AT),
        Err(UploadRefusal::SignatureDoesNotMatch)
    );
}

#[test]
fn another_stores_secret_does_not_sign_for_this_one() {
    let other = Store::new(
        Url::parse("http://127.0.0.1:8080").unwrap(),
        "coffer-uploads",
        "local",
        "coffer",
        "some-other-secret",
    )
    .unwrap();
    let credentials = issue(&other, PREFIX, ISSUED_AT, Duration::minutes(5), 1000).unwrap();
    let fields = spec_fields(&credentials, "a.xml");
    assert_eq!(
        verify(&store(), &form(fields, 1), ISSUED_AT),
        Err(UploadRefusal::SignatureDoesNotMatch)
    );
}

#[test]
fn fields_the_policy_does_not_name_are_refused() {
    let mut fields = spec_fields(&credentials(), "a.xml");
    fields.push(("success_action_status".to_owned(), "201".to_owned()));
    assert_eq!(
        verify(&store(), &form(fields, 1), ISSUED_AT),
        Err(UploadRefusal::ExtraField {
            field: "success_action_status".to_owned()
        })
    );
}

#[test]
fn every_field_of_the_procedure_is_required() {
    let complete = spec_fields(&credentials(), "a.xml");
    for (index, (name, _)) in complete.iter().enumerate() {
        let mut fields = complete.clone();
        fields.remove(index);
        let refusal = verify(&store(), &form(fields, 1), ISSUED_AT).unwrap_err();
        match name.as_str() {
            // Not required by S3 itself but by a condition of the signed policy; S3 might let
            // an absent field through `starts-with ""`, the standalone store does not.
            "X-Amz-Meta-Name" | "Content-Type" => assert!(
                matches!(&refusal, UploadRefusal::ConditionFailed { condition } if condition.contains(&name.to_ascii_lowercase())),
                "without {name}: {refusal}"
            ),
            _ => assert!(
                matches!(refusal, UploadRefusal::MissingField { .. }),
                "without {name}: {refusal}"
            ),
        }
    }
}

#[test]
fn a_field_given_twice_is_refused() {
    let mut fields = spec_fields(&credentials(), "a.xml");
    fields.push(("KEY".to_owned(), format!("{PREFIX}/b.xml")));
    assert_eq!(
        verify(&store(), &form(fields, 1), ISSUED_AT),
        Err(UploadRefusal::DuplicateField {
            field: "key".to_owned()
        })
    );
}
