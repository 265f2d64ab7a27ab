//! The check the standalone store makes before it keeps a posted file: the same rules S3
//! applies to a browser-POST upload, so that a client that works against `coffer dev` works
//! against S3 and the other way round.
//!
//! Where S3 is vague or lenient this is the stricter of the two: a field that a condition
//! names must be present (even for `starts-with ""`), a form field may appear only once, and
//! the key has to be a plain relative path because the standalone store turns it into one.

use std::collections::BTreeMap;

use aws_lc_rs::constant_time;
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::policy::{self, Condition};
use crate::refusal::UploadRefusal;
use crate::sigv4;
use crate::store::Store;

/// S3's longest key, in bytes of UTF-8.
const MAX_KEY_BYTES: usize = 1024;

/// A multipart upload as the HTTP side received it: every text field in order, and the size
/// of the `file` part (which S3 requires to be the last part).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UploadForm {
    pub fields: Vec<(String, String)>,
    pub file_len: u64,
}

/// What the store may keep, and under which key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedUpload {
    pub key: String,
    /// The `X-Amz-Meta-Name` field: the file's name as the uploader gave it.
    pub name: Option<String>,
    pub content_type: Option<String>,
    pub size: u64,
}

/// Accepts `form` only if it carries a policy signed with the store's key that has not
/// expired at `now` and whose every condition the form meets.
pub fn verify(
    store: &Store,
    form: &UploadForm,
    now: OffsetDateTime,
) -> Result<AcceptedUpload, UploadRefusal> {
    let fields = Fields::index(&form.fields)?;
    let policy_base64 = fields.required("policy", "Policy")?;
    let algorithm = fields.required("x-amz-algorithm", "X-Amz-Algorithm")?;
    let credential = fields.required("x-amz-credential", "X-Amz-Credential")?;
    let date = fields.required("x-amz-date", "X-Amz-Date")?;
    let signature = fields.required("x-amz-signature", "X-Amz-Signature")?;
    let key = fields.required("key", "key")?;

    if algorithm != sigv4::ALGORITHM {
        return Err(UploadRefusal::UnsupportedAlgorithm {
            algorithm: algorithm.to_owned(),
        });
    }
    let scope_date = check_credential(store, credential, date)?;
    let signing_key = sigv4::signing_key(store.secret_key(), scope_date, store.region());
    if !sigv4::policy_signature_matches(&signing_key, policy_base64, signature) {
        return Err(UploadRefusal::SignatureDoesNotMatch);
    }
    check_security_token(store, fields.get("x-amz-security-token"))?;

    let policy = policy::decode(policy_base64)
        .map_err(|reason| UploadRefusal::InvalidPolicyDocument { reason })?;
    if now >= policy.expiration {
        return Err(UploadRefusal::Expired {
            expiration: policy
                .expiration
                .format(&Rfc3339)
                .unwrap_or_else(|_| policy.expiration.to_string()),
        });
    }
    for condition in &policy.conditions {
        check_condition(store, &fields, form.file_len, condition)?;
    }
    for name in fields.names() {
        let exempt =
            matches!(name, "x-amz-signature" | "policy" | "file") || name.starts_with("x-ignore-");
        if !exempt
            && !policy
                .conditions
                .iter()
                .any(|condition| condition.field() == Some(name))
        {
            return Err(UploadRefusal::ExtraField {
                field: name.to_owned(),
            });
        }
    }
    check_key(key)?;

    Ok(AcceptedUpload {
        key: key.to_owned(),
        name: fields.get("x-amz-meta-name").map(str::to_owned),
        content_type: fields.get("content-type").map(str::to_owned),
        size: form.file_len,
    })
}

/// The form's fields by lowercase name: S3 matches field names without regard to case.
struct Fields<'a>(BTreeMap<String, &'a str>);

impl<'a> Fields<'a> {
    fn index(pairs: &'a [(String, String)]) -> Result<Self, UploadRefusal> {
        let mut map = BTreeMap::new();
        for (name, value) in pairs {
            let name = name.to_ascii_lowercase();
            if map.insert(name.clone(), value.as_str()).is_some() {
                // Two spellings of one field would leave it open which one the policy saw.
                return Err(UploadRefusal::DuplicateField { field: name });
            }
        }
        Ok(Self(map))
    }

    fn get(&self, lowercase_name: &str) -> Option<&'a str> {
        self.0.get(lowercase_name).copied()
    }

    fn required(
        &self,
        lowercase_name: &str,
        shown_as: &'static str,
    ) -> Result<&'a str, UploadRefusal> {
        self.get(lowercase_name)
            .ok_or(UploadRefusal::MissingField { field: shown_as })
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

/// `X-Amz-Credential` must name this store's access key and region, S3, and the day of
/// `X-Amz-Date`. Returns the scope's date, which the signing key is made for.
fn check_credential<'a>(
    store: &Store,
    credential: &'a str,
    amz_date: &str,
) -> Result<&'a str, UploadRefusal> {
    let malformed = |reason| UploadRefusal::MalformedCredential {
        credential: credential.to_owned(),
        reason,
    };
    // Access keys hold no slash, so a well-formed credential has exactly five parts.
    let parts: Vec<&str> = credential.split('/').collect();
    let [access_key, scope_date, region, service, terminator] = parts.as_slice() else {
        return Err(malformed(
            "it is not access-key/date/region/service/aws4_request",
        ));
    };
    if *access_key != store.access_key() {
        return Err(UploadRefusal::UnknownAccessKey {
            access_key: (*access_key).to_owned(),
        });
    }
    if *region != store.region() {
        return Err(malformed("it is for another region"));
    }
    if *service != sigv4::SERVICE || *terminator != sigv4::TERMINATOR {
        return Err(malformed("it is not an S3 aws4_request scope"));
    }
    let date = PrimitiveDateTime::parse(amz_date, sigv4::AMZ_DATE)
        .map_err(|_| malformed("X-Amz-Date is not of the form YYYYMMDDTHHMMSSZ"))?;
    let day = date
        .date()
        .format(sigv4::SCOPE_DATE)
        .map_err(|_| malformed("X-Amz-Date is out of range"))?;
    if day != *scope_date {
        return Err(malformed("its date is not the day of X-Amz-Date"));
    }
    Ok(scope_date)
}

/// Temporary credentials sign only together with their token; long-term ones have none.
fn check_security_token(store: &Store, given: Option<&str>) -> Result<(), UploadRefusal> {
    match (store.session_token(), given) {
        (None, None) => Ok(()),
        (Some(expected), Some(given))
            if constant_time::verify_slices_are_equal(expected.as_bytes(), given.as_bytes())
                .is_ok() =>
        {
            Ok(())
        }
        _ => Err(UploadRefusal::InvalidToken),
    }
}

fn check_condition(
    store: &Store,
    fields: &Fields<'_>,
    file_len: u64,
    condition: &Condition,
) -> Result<(), UploadRefusal> {
    let (field, operand, test): (&str, &str, fn(&str, &str) -> bool) = match condition {
        Condition::ContentLengthRange { min, max } => return check_length(file_len, *min, *max),
        Condition::Eq { field, value } => (field, value, |actual, value| actual == value),
        Condition::StartsWith { field, prefix } => {
            (field, prefix, |actual, prefix| actual.starts_with(prefix))
        }
    };
    let holds = |actual: &str| test(actual, operand);
    let met = if field == "bucket" {
        // The bucket is the one posted to; a `bucket` form field, if any, must agree too.
        holds(store.bucket()) && fields.get("bucket").is_none_or(holds)
    } else {
        fields.get(field).is_some_and(holds)
    };
    if met {
        Ok(())
    } else {
        Err(UploadRefusal::ConditionFailed {
            condition: condition.to_string(),
        })
    }
}

fn check_length(size: u64, min: u64, max: u64) -> Result<(), UploadRefusal> {
    if size < min {
        return Err(UploadRefusal::EntityTooSmall { size, min });
    }
    if size > max {
        return Err(UploadRefusal::EntityTooLarge { size, max });
    }
    Ok(())
}

/// The standalone store keeps the file at this key below its directory, so the key must
/// not climb out of it or name a directory.
fn check_key(key: &str) -> Result<(), UploadRefusal> {
    let unsafe_key = |reason| UploadRefusal::UnsafeKey {
        key: key.to_owned(),
        reason,
    };
    if key.len() > MAX_KEY_BYTES {
        return Err(UploadRefusal::KeyTooLong {
            key: key.to_owned(),
        });
    }
    if key.split('/').any(|part| matches!(part, "" | "." | "..")) {
        return Err(unsafe_key(
            "it has an empty, `.` or `..` segment, or starts or ends with a slash",
        ));
    }
    if key.chars().any(|c| c.is_control() || c == '\\') {
        return Err(unsafe_key("it contains a control character or a backslash"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde_json::json;
    use time::macros::datetime;
    use url::Url;

    const NOW: OffsetDateTime = datetime!(2026-11-26 09:15:00 UTC);

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

    /// A form for a hand-written policy, signed as S3 would expect.
    fn signed_form(conditions: serde_json::Value, extra: &[(&str, &str)]) -> UploadForm {
        let policy = STANDARD.encode(
            json!({"expiration": "2026-11-26T09:20:00Z", "conditions": conditions}).to_string(),
        );
        let key = sigv4::signing_key("SECRET", "20261126", "us-east-1");
        let mut fields = vec![
            (
                "x-amz-credential".to_owned(),
                "AKID/20261126/us-east-1/s3/aws4_request".to_owned(),
            ),
            ("x-amz-algorithm".to_owned(), "AWS4-HMAC-SHA256".to_owned()),
            ("x-amz-date".to_owned(), "20261126T091500Z".to_owned()),
            (
                "x-amz-signature".to_owned(),
                sigv4::sign_policy(&key, &policy),
            ),
            ("policy".to_owned(), policy),
        ];
        fields.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        UploadForm {
            fields,
            file_len: 10,
        }
    }

    fn signing_conditions() -> Vec<serde_json::Value> {
        vec![
            json!({"x-amz-credential": "AKID/20261126/us-east-1/s3/aws4_request"}),
            json!({"x-amz-algorithm": "AWS4-HMAC-SHA256"}),
            json!({"x-amz-date": "20261126T091500Z"}),
        ]
    }

    #[test]
    fn array_form_eq_conditions_and_a_bucket_field_are_honoured() {
        let mut conditions = signing_conditions();
        conditions.push(json!(["eq", "$key", "in/a.csv"]));
        conditions.push(json!(["eq", "$bucket", "coffer-test"]));
        let form = signed_form(
            json!(conditions),
            &[("key", "in/a.csv"), ("bucket", "coffer-test")],
        );
        let accepted = verify(&store(), &form, NOW).unwrap();
        assert_eq!(accepted.key, "in/a.csv");
        assert_eq!(accepted.name, None);

        let other = signed_form(
            json!(conditions),
            &[("key", "in/b.csv"), ("bucket", "coffer-test")],
        );
        assert_eq!(
            verify(&store(), &other, NOW),
            Err(UploadRefusal::ConditionFailed {
                condition: r#"["eq","$key","in/a.csv"]"#.to_owned()
            })
        );
        let wrong_bucket = signed_form(
            json!(conditions),
            &[("key", "in/a.csv"), ("bucket", "elsewhere")],
        );
        assert!(matches!(
            verify(&store(), &wrong_bucket, NOW),
            Err(UploadRefusal::ConditionFailed { .. })
        ));
    }

    #[test]
    fn x_ignore_fields_need_no_condition() {
        let mut conditions = signing_conditions();
        conditions.push(json!(["starts-with", "$key", ""]));
        let form = signed_form(
            json!(conditions),
            &[("key", "a"), ("x-ignore-submit", "Upload")],
        );
        assert!(verify(&store(), &form, NOW).is_ok());
    }

    #[test]
    fn keys_that_are_not_plain_relative_paths_are_refused() {
        let mut conditions = signing_conditions();
        conditions.push(json!(["starts-with", "$key", "in/"]));
        for key in [
            "in/../../etc/passwd",
            "in/",
            "in//a",
            "in/./a",
            "in/a\\b",
            "in/a\u{0}",
        ] {
            let form = signed_form(json!(conditions), &[("key", key)]);
            assert!(
                matches!(
                    verify(&store(), &form, NOW),
                    Err(UploadRefusal::UnsafeKey { .. })
                ),
                "{key:?}"
            );
        }
        let long = format!("in/{}", "a".repeat(1100));
        let form = signed_form(json!(conditions), &[("key", &long)]);
        assert!(matches!(
            verify(&store(), &form, NOW),
            Err(UploadRefusal::KeyTooLong { .. })
        ));
    }

    #[test]
    fn credentials_for_another_key_region_or_day_are_refused() {
        let mut conditions = signing_conditions();
        conditions.push(json!(["starts-with", "$key", ""]));
        let cases = [
            (
                "AKOTHER/20261126/us-east-1/s3/aws4_request",
                "InvalidAccessKeyId",
            ),
            ("AKID/20261126/eu-west-1/s3/aws4_request", "InvalidArgument"),
            ("AKID/20261125/us-east-1/s3/aws4_request", "InvalidArgument"),
            (
                "AKID/20261126/us-east-1/sts/aws4_request",
                "InvalidArgument",
            ),
            ("AKID/20261126/us-east-1/s3", "InvalidArgument"),
        ];
        for (credential, code) in cases {
            let mut form = signed_form(json!(conditions), &[("key", "a")]);
            form.fields[0].1 = credential.to_owned();
            let refusal = verify(&store(), &form, NOW).unwrap_err();
            assert_eq!(refusal.code(), code, "{credential}: {refusal}");
        }
    }

    #[test]
    fn a_token_must_match_the_stores() {
        let mut conditions = signing_conditions();
        conditions.push(json!(["starts-with", "$key", ""]));
        conditions.push(json!(["starts-with", "$x-amz-security-token", ""]));
        let with_token = store().with_session_token("TOKEN");
        let good = signed_form(
            json!(conditions),
            &[("key", "a"), ("X-Amz-Security-Token", "TOKEN")],
        );
        assert!(verify(&with_token, &good, NOW).is_ok());
        let bad = signed_form(
            json!(conditions),
            &[("key", "a"), ("X-Amz-Security-Token", "TOKEM")],
        );
        assert_eq!(
            verify(&with_token, &bad, NOW),
            Err(UploadRefusal::InvalidToken)
        );
        let missing = signed_form(json!(conditions), &[("key", "a")]);
        assert_eq!(
            verify(&with_token, &missing, NOW),
            Err(UploadRefusal::InvalidToken)
        );
        assert_eq!(
            verify(&store(), &good, NOW),
            Err(UploadRefusal::InvalidToken)
        );
    }

    #[test]
    fn an_undecodable_policy_is_refused_after_its_signature() {
        let key = sigv4::signing_key("SECRET", "20261126", "us-east-1");
        let policy = STANDARD.encode("{\"conditions\": []}");
        let form = UploadForm {
            fields: vec![
                ("key".into(), "a".into()),
                (
                    "X-Amz-Credential".into(),
                    "AKID/20261126/us-east-1/s3/aws4_request".into(),
                ),
                ("X-Amz-Algorithm".into(), "AWS4-HMAC-SHA256".into()),
                ("X-Amz-Date".into(), "20261126T091500Z".into()),
                ("X-Amz-Signature".into(), sigv4::sign_policy(&key, &policy)),
                ("Policy".into(), policy),
            ],
            file_len: 1,
        };
        assert!(matches!(
            verify(&store(), &form, NOW),
            Err(UploadRefusal::InvalidPolicyDocument { .. })
        ));
    }
}
