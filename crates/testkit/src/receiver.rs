//! A real HTTPS webhook receiver on loopback for tests (scripts/webhook-receiver.py, run
//! with the checkers' Python so that the `standardwebhooks` library can verify what it
//! got). Its certificate is made for the test and trusted only by what the test hands it
//! to. Missing tools fail the test loudly: a receiver that cannot start is never skipped.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

pub struct Receiver {
    pub port: u16,
    /// The receiver's certificate (PEM): the root a test trusts it by.
    pub cert_pem: Vec<u8>,
    python: PathBuf,
    script: PathBuf,
    client: reqwest::Client,
    child: Child,
    _dir: tempfile::TempDir,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn checkers_python() -> PathBuf {
    let bin = std::env::var("COFFER_TEST_CHECKERS").expect(
        "COFFER_TEST_CHECKERS names the checkers' bin directory (scripts/checkers.sh; make test sets it)",
    );
    PathBuf::from(bin).join("python")
}

impl Receiver {
    pub fn start() -> Receiver {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        let made = Command::new("openssl")
            .args([
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "2",
            ])
            .args([
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
            .args(["-addext", "basicConstraints=critical,CA:FALSE"])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stderr(Stdio::null())
            .status()
            .expect("openssl makes the receiver's certificate");
        assert!(made.success(), "openssl could not make a certificate");
        let python = checkers_python();
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/webhook-receiver.py");
        let mut child = Command::new(&python)
            .arg(&script)
            .arg("serve")
            .arg("--cert")
            .arg(&cert)
            .arg("--key")
            .arg(&key)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "the webhook receiver does not start with {}: {e}",
                    python.display()
                )
            });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = serde_json::from_str::<Value>(&line)
            .unwrap_or_else(|_| panic!("the receiver said {line:?}, not its port"))["port"]
            .as_u64()
            .unwrap();
        let cert_pem = std::fs::read(&cert).unwrap();
        let client = reqwest::Client::builder()
            .add_root_certificate(reqwest::Certificate::from_pem(&cert_pem).unwrap())
            .build()
            .unwrap();
        Receiver {
            port: u16::try_from(port).unwrap(),
            cert_pem,
            python,
            script,
            client,
            child,
            _dir: dir,
        }
    }

    /// The receiver's URL for `path` (`/ok`, `/status/500`, ...), by name, as an endpoint
    /// would register it.
    pub fn url(&self, path: &str) -> String {
        format!("https://localhost:{}{path}", self.port)
    }

    /// Every request received so far: `{path, headers, body, arrived}`.
    pub async fn received(&self) -> Vec<Value> {
        let res = self
            .client
            .get(self.url("/_received"))
            .send()
            .await
            .unwrap();
        res.json::<Vec<Value>>().await.unwrap()
    }

    /// The requests to `path`, once there are at least `n` (within `within`).
    pub async fn wait_for(&self, path: &str, n: usize, within: Duration) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let got: Vec<Value> = self
                .received()
                .await
                .into_iter()
                .filter(|r| r["path"] == path)
                .collect();
            if got.len() >= n {
                return got;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{path} received {} requests, not {n}, within {within:?}",
                got.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Whether the `standardwebhooks` library verifies `request` (as received) with
    /// `secret` (`raw`: a key not in the whsec_ form), on a receiver's clock at `at`.
    pub fn verifies(&self, request: &Value, secret: &str, raw: bool, at: i64) -> bool {
        let mut cmd = Command::new(&self.python);
        cmd.arg(&self.script)
            .args(["verify", "--secret", secret, "--at", &at.to_string()]);
        if raw {
            cmd.arg("--raw");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let input = serde_json::json!({"headers": request["headers"], "body": request["body"]});
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        child.wait().unwrap().success()
    }
}
