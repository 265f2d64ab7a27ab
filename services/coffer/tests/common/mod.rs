//! Driving the `coffer` binary: start `coffer dev`, wait for it, call it as a client would.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod browser;
pub mod fixtures;
pub mod replay;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

pub const COFFER: &str = env!("CARGO_BIN_EXE_coffer");

/// Kills the server when the test ends, pass or fail.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn dev(data_dir: &Path) -> Command {
    let mut command = Command::new(COFFER);
    command
        .args(["dev", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .env_remove("COFFER_SECRETS__KEYS")
        .env_remove("COFFER_SECRETS__CURRENT");
    command
}

pub fn start(data_dir: &Path) -> Server {
    start_with(data_dir, &[])
}

/// `coffer dev` with `env` set (master keys, say).
pub fn start_with(data_dir: &Path, env: &[(&str, &str)]) -> Server {
    let child = dev(data_dir)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("coffer dev starts");
    Server(child)
}

/// `coffer dev` started by a shell with `umask` in force, as a user's login might have it.
pub fn start_under_umask(data_dir: &Path, umask: &str) -> Server {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
        .arg(COFFER)
        .args(dev(data_dir).get_args())
        .env_remove("COFFER_SECRETS__KEYS")
        .env_remove("COFFER_SECRETS__CURRENT")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("coffer dev starts");
    Server(child)
}

/// `coffer dev` that is expected to stop on its own (a refused start); its output, or a
/// panic if it is still running after a generous while.
pub fn run_to_exit(data_dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut child = dev(data_dir)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("coffer dev starts");
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("coffer dev kept running");
}

/// `coffer dev` with `args` (`--log-format json`, say) and `env`, as a terminal-less
/// supervisor would run it: its output read from pipes, all of it kept.
pub struct Captured {
    pub server: Server,
    stdout: std::thread::JoinHandle<Vec<u8>>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
}

/// Output, stdout and stderr.
pub struct Written {
    pub stdout: String,
    pub stderr: String,
}

impl Written {
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.stdout.lines().chain(self.stderr.lines())
    }
}

/// Starts a [`Captured`] `coffer dev`; the log settings are only those of `env`.
pub fn start_captured(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Captured {
    let mut child = dev(data_dir)
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("COFFER_LOG__LEVEL")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("coffer dev starts");
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.read_to_end(&mut out);
            out
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    Captured {
        server: Server(child),
        stdout,
        stderr,
    }
}

impl Captured {
    /// Stops the server; what it wrote until then.
    pub fn stop(self) -> Written {
        drop(self.server);
        let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
        Written {
            stdout: text(self.stdout.join().unwrap()),
            stderr: text(self.stderr.join().unwrap()),
        }
    }
}

/// Waits (bounded) until the server answers on the address it wrote to credentials.json.
pub async fn credentials(data_dir: &Path, server: &mut Server) -> Value {
    let http = reqwest::Client::new();
    for _ in 0..200 {
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!("coffer dev exited early: {status}");
        }
        if let Ok(bytes) = std::fs::read(data_dir.join("credentials.json"))
            && let Ok(c) = serde_json::from_slice::<Value>(&bytes)
        {
            let base = c["base_url"].as_str().unwrap().to_owned();
            let live = http.get(format!("{base}/health/ready")).send().await;
            if live.is_ok_and(|r| r.status() == 200) {
                return c;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("coffer dev did not become ready");
}

pub fn admin(data_dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(COFFER)
        .arg("admin")
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "coffer admin {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

pub async fn token(base: &str, id: &str, secret: &str) -> String {
    token_from(&reqwest::Client::new(), base, id, secret).await
}

/// [`token`] asked by `http` (one bound to another client address, say).
pub async fn token_from(http: &reqwest::Client, base: &str, id: &str, secret: &str) -> String {
    let res = http
        .post(format!("{base}/oauth2/token"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", id),
            ("client_secret", secret),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    res.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub async fn get(base: &str, path: &str, token: &str) -> (u16, Value) {
    let res = reqwest::Client::new()
        .get(format!("{base}{path}"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

/// A token for the demo client `credentials.json` names.
pub async fn demo_token(c: &Value) -> String {
    token(
        c["base_url"].as_str().unwrap(),
        c["client_id"].as_str().unwrap(),
        c["client_secret"].as_str().unwrap(),
    )
    .await
}

/// A loopback port nothing listens on just now, for a server the test starts on a port of
/// its choosing.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
