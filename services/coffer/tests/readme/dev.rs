//! The walk-through's `coffer dev`, the tools it needs, and the API as its token reaches
//! it for what the test reads itself.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde_json::Value;

use crate::common;
use crate::shell::{Shell, last_lines, without_coffer_settings};

pub(crate) fn require_tools() {
    for (tool, package) in [
        ("bash", "bash"),
        ("curl", "curl"),
        ("jq", "jq"),
        ("openssl", "openssl"),
    ] {
        let found = Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok();
        assert!(
            found,
            "the README's walk-through needs {tool}: apt-get install {package}"
        );
    }
}

/// The walk-through's own server, and where it writes its output.
pub(crate) struct Dev {
    pub(crate) cwd: PathBuf,
    pub(crate) port: u16,
    pub(crate) server: Option<common::Server>,
}

impl Drop for Dev {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.log()).unwrap_or_default();
            eprintln!("coffer dev's last lines:\n{}", last_lines(&log));
        }
    }
}

impl Dev {
    pub(crate) fn log(&self) -> PathBuf {
        self.cwd.join("coffer-dev.log")
    }

    pub(crate) async fn start(&mut self, flags: &[String]) {
        assert!(
            self.server.is_none(),
            "a second coffer dev while the first still runs"
        );
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log())
            .unwrap();
        let mut command = Command::new(common::COFFER);
        command
            .arg("dev")
            .args(flags)
            .args(["--listen", &format!("127.0.0.1:{}", self.port)])
            .current_dir(&self.cwd)
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        without_coffer_settings(&mut command);
        let mut server = common::Server(command.spawn().expect("coffer dev starts"));
        let c = common::credentials(&self.cwd.join("data"), &mut server).await;
        assert_eq!(c["base_url"], format!("http://127.0.0.1:{}", self.port));
        self.server = Some(server);
    }

    /// Ctrl-C, and its exit awaited.
    pub(crate) async fn stop(&mut self) {
        let mut server = self.server.take().expect("a coffer dev to stop");
        let pid = Pid::from_raw(server.0.id() as i32).unwrap();
        rustix::process::kill_process(pid, Signal::INT).unwrap();
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = server.0.try_wait().unwrap() {
                assert!(
                    status.success(),
                    "coffer dev stopped on Ctrl-C with {status}"
                );
                return;
            }
            assert!(Instant::now() < until, "coffer dev did not stop on Ctrl-C");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The API as the walk-through's own token reaches it, for what the test reads itself.
pub(crate) struct Api {
    base: String,
    token: String,
}

impl Api {
    pub(crate) fn of(shell: &mut Shell, token_var: &str) -> Api {
        Api {
            base: shell.var("BASE"),
            token: shell.var(token_var),
        }
    }

    pub(crate) async fn get(&self, path: &str) -> (u16, Value) {
        common::get(&self.base, path, &self.token).await
    }

    /// Waits (bounded) until `path` answers 200 with what `done` looks for.
    pub(crate) async fn until(&self, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, body) = self.get(path).await;
            if status == 200 && done(&body) {
                return body;
            }
            assert!(
                Instant::now() < until,
                "{path} never became what the README says: {status} {body}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}
