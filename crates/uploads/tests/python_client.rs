//! A client that is not Coffer's: Python posts the form field by field in the order SPEC.md's
//! procedure gives (urllib3), and boto3 reads back through the S3 API what the store kept.
//! The interpreter is the checkers venv of scripts/checkers.sh (`COFFER_TEST_CHECKERS`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write as _;
use std::process::{Command, Stdio};

use coffer_uploads::{delete, get, issue};
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use common::{required_env, s3_store, unique_prefix};

const CLIENT: &str = r#"
import json, sys, urllib.parse
import boto3, botocore.config, urllib3

job = json.load(sys.stdin)
inputs = job["credentials"]["inputs"]
action = job["credentials"]["attributes"]["action"]
name = job["file_name"]
key = inputs["key"] + "/" + name
fields = [("key", key), ("X-Amz-Credential", inputs["X-Amz-Credential"])]
if "X-Amz-Security-Token" in inputs:
    fields.append(("X-Amz-Security-Token", inputs["X-Amz-Security-Token"]))
fields += [
    ("X-Amz-Date", inputs["X-Amz-Date"]),
    ("X-Amz-Signature", inputs["X-Amz-Signature"]),
    ("X-Amz-Algorithm", inputs["X-Amz-Algorithm"]),
    ("X-Amz-Meta-Name", name),
    ("Policy", inputs["Policy"]),
    ("Content-Type", name.rsplit(".", 1)[-1]),
    ("file", (name, job["content"].encode(), "application/octet-stream")),
]
response = urllib3.request(job["credentials"]["attributes"]["method"], action, fields=fields)
result = {"status": response.status, "body": response.data.decode()}

if response.status == 204:
    store = urllib.parse.urlsplit(job["s3"])
    client = boto3.client(
        "s3",
        endpoint_url=f"{store.scheme}://{store.hostname}:{store.port}",
        aws_access_key_id=urllib.parse.unquote(store.username),
        aws_secret_access_key=urllib.parse.unquote(store.password),
        region_name=urllib.parse.parse_qs(store.query).get("region", ["us-east-1"])[0],
        config=botocore.config.Config(s3={"addressing_style": "path"}),
    )
    head = client.head_object(Bucket=store.path.strip("/"), Key=key)
    result.update(metadata=head["Metadata"], content_type=head["ContentType"], length=head["ContentLength"])
print(json.dumps(result))
"#;

#[tokio::test]
async fn a_python_client_uploads_and_boto3_sees_the_file_with_its_metadata() {
    let checkers = required_env("COFFER_TEST_CHECKERS").unwrap_or_else(|| {
        panic!(
            "COFFER_TEST_CHECKERS is not set: this test runs Python with boto3. Run it with \
             `make test`, or export COFFER_TEST_CHECKERS=\"$(scripts/checkers.sh)\" first."
        )
    });
    let s3 = std::env::var("COFFER_TEST_S3").unwrap_or_default();
    let store = s3_store();
    let prefix = unique_prefix("python");
    let credentials = issue(
        &store,
        &prefix,
        OffsetDateTime::now_utc(),
        Duration::minutes(5),
        1 << 20,
    )
    .unwrap();
    let content = "<Document>camt.054</Document>\n";
    let job = json!({
        "credentials": credentials,
        "file_name": "camt054.xml",
        "content": content,
        "s3": s3,
    });

    let mut child = Command::new(format!("{checkers}/python"))
        .args(["-c", CLIENT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot run {checkers}/python: {err}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(job.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the Python client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();

    assert_eq!(result["status"], 204, "{result}");
    assert_eq!(
        result["metadata"],
        json!({"name": "camt054.xml"}),
        "{result}"
    );
    assert_eq!(result["content_type"], "xml", "{result}");
    assert_eq!(result["length"], content.len(), "{result}");
    let key = format!("{prefix}/camt054.xml");
    assert_eq!(get(&store, &key).await.unwrap(), content.as_bytes());
    delete(&store, &key).await.unwrap();
}
