//! What the upload tests share: the store `make test` starts (scripts/s3.sh) and a client
//! that posts a file exactly as SPEC.md's upload procedure says.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use coffer_uploads::{Store, UploadCredentials};
use url::Url;

/// The bucket of scripts/s3.sh, from `COFFER_TEST_S3`
/// (`http://ACCESS_KEY:SECRET_KEY@HOST:PORT/BUCKET?region=REGION`).
pub fn s3_store() -> Store {
    let raw = required_env("COFFER_TEST_S3").unwrap_or_else(|| {
        panic!(
            "COFFER_TEST_S3 is not set: these tests need an S3-compatible store. Run them with \
             `make test`, or export COFFER_TEST_S3=\"$(scripts/s3.sh)\" first."
        )
    });
    let url = Url::parse(&raw).unwrap_or_else(|err| panic!("COFFER_TEST_S3={raw:?}: {err}"));
    let decode = |part: &str| {
        percent_decode(part).unwrap_or_else(|| panic!("COFFER_TEST_S3: bad escape in {part:?}"))
    };
    let access_key = decode(url.username());
    let secret_key = decode(url.password().expect("COFFER_TEST_S3 has no secret key"));
    let bucket = url.path().trim_matches('/').to_owned();
    let region = url
        .query_pairs()
        .find(|(name, _)| name == "region")
        .map_or_else(|| "us-east-1".to_owned(), |(_, value)| value.into_owned());
    let mut endpoint = url.clone();
    endpoint.set_username("").unwrap();
    endpoint.set_password(None).unwrap();
    endpoint.set_path("/");
    endpoint.set_query(None);
    Store::new(endpoint, bucket, region, access_key, secret_key).expect("COFFER_TEST_S3")
}

/// A variable `make test` sets from a script's output; an empty one means the script failed
/// (its error is on the terminal above), which is no reason to skip.
pub fn required_env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A key prefix no other test (or earlier run) uses.
pub fn unique_prefix(test: &str) -> String {
    format!("tests/{test}/{}", uuid::Uuid::new_v4())
}

/// The text fields of step 2 of SPEC.md's upload procedure, in its order: the key is the
/// returned prefix, a slash and the file name, and Content-Type is the file's extension.
pub fn spec_fields(credentials: &UploadCredentials, file_name: &str) -> Vec<(String, String)> {
    let inputs = &credentials.inputs;
    let extension = file_name.rsplit_once('.').map_or("", |(_, ext)| ext);
    let mut fields = vec![
        ("key".to_owned(), format!("{}/{file_name}", inputs.key)),
        ("X-Amz-Credential".to_owned(), inputs.credential.clone()),
    ];
    if let Some(token) = &inputs.security_token {
        fields.push(("X-Amz-Security-Token".to_owned(), token.clone()));
    }
    fields.extend([
        ("X-Amz-Date".to_owned(), inputs.date.clone()),
        ("X-Amz-Signature".to_owned(), inputs.signature.clone()),
        ("X-Amz-Algorithm".to_owned(), inputs.algorithm.clone()),
        ("X-Amz-Meta-Name".to_owned(), file_name.to_owned()),
        ("Policy".to_owned(), inputs.policy.clone()),
        ("Content-Type".to_owned(), extension.to_owned()),
    ]);
    fields
}

/// Posts `fields` and then the file (last, as S3 requires) to the form's action.
pub async fn post_form(
    credentials: &UploadCredentials,
    fields: &[(String, String)],
    file_name: &str,
    content: &[u8],
) -> Response {
    assert_eq!(credentials.attributes.method, "POST");
    assert_eq!(credentials.attributes.enctype, "multipart/form-data");
    let mut form = reqwest::multipart::Form::new();
    for (name, value) in fields {
        form = form.text(name.clone(), value.clone());
    }
    let file = reqwest::multipart::Part::bytes(content.to_vec())
        .file_name(file_name.to_owned())
        .mime_str("application/octet-stream")
        .unwrap();
    form = form.part("file", file);
    let response = reqwest::Client::new()
        .post(&credentials.attributes.action)
        .multipart(form)
        .send()
        .await
        .expect("the object store did not answer");
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    Response { status, body }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub body: String,
}

impl Response {
    /// The `<Code>` of an S3 XML error body.
    pub fn error_code(&self) -> Option<&str> {
        let start = self.body.find("<Code>")? + "<Code>".len();
        let end = start + self.body[start..].find("</Code>")?;
        Some(&self.body[start..end])
    }
}
