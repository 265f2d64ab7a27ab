//! The one bash session the README's blocks run in, fed step by step.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// How long one block may take: its loops wait on the server, which a loaded machine
/// slows, and a block that hangs must still end the test with its name.
pub(crate) const BLOCK_DEADLINE: Duration = Duration::from_secs(180);

/// The end of a program's output, for a failure's message.
pub(crate) fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

/// A newcomer's environment: no `COFFER_*` setting of the test run (a data directory, an
/// address, master keys) reaches the walk-through.
pub(crate) fn without_coffer_settings(command: &mut Command) {
    for (name, _) in std::env::vars() {
        if name.starts_with("COFFER_") {
            command.env_remove(&name);
        }
    }
}

/// One bash session the blocks run in, fed step by step through its stdin.
pub(crate) struct Shell {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<String>>,
    scripts: PathBuf,
    steps: usize,
}

impl Drop for Shell {
    fn drop(&mut self) {
        // The session and what it started in the background (the webhook receiver).
        let group = Pid::from_raw(self.child.id() as i32).unwrap();
        let _ = rustix::process::kill_process_group(group, Signal::KILL);
        let _ = self.child.wait();
    }
}

pub(crate) const DONE: &str = "@@readme-step-done@@";

impl Shell {
    pub(crate) fn start(cwd: &Path, path: &str, scripts: PathBuf) -> Shell {
        let mut command = Command::new("bash");
        command
            .args(["--noprofile", "--norc"])
            .current_dir(cwd)
            .env("PATH", path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        without_coffer_settings(&mut command);
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().expect("bash starts");
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let mut pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = std::io::Read::read(&mut pipe, &mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut shell = Shell {
            child,
            stdin,
            lines,
            stderr,
            scripts,
            steps: 0,
        };
        shell.send(
            "set -euo pipefail\n\
             trap 'echo \"readme: line $LINENO failed with $?: $BASH_COMMAND\" >&2' ERR\n",
        );
        shell
    }

    pub(crate) fn send(&mut self, text: &str) {
        self.stdin.write_all(text.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    pub(crate) fn stderr_tail(&self) -> String {
        last_lines(&self.stderr.lock().unwrap())
    }

    /// The next line the session prints, within `deadline`.
    pub(crate) fn next_line(&mut self, what: &str, until: Instant, seen: &[String]) -> String {
        let left = until.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!(
                "{what}: not done within {BLOCK_DEADLINE:?}\nprinted:\n{}\nstderr:\n{}",
                seen.join("\n"),
                self.stderr_tail()
            ),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().unwrap();
                panic!(
                    "{what}: the shell stopped ({status})\nprinted:\n{}\nstderr:\n{}",
                    seen.join("\n"),
                    self.stderr_tail()
                )
            }
        }
    }

    /// Runs `script` in the session; what it printed on stdout.
    pub(crate) fn run(&mut self, what: &str, script: &str) -> Vec<String> {
        self.steps += 1;
        let file = self.scripts.join(format!("step-{}.sh", self.steps));
        std::fs::write(&file, script).unwrap();
        // Sourced, so its variables stay; stdin is not the session's commands.
        self.send(&format!(
            "source '{}' </dev/null\nprintf '\\n%s\\n' '{DONE}'\n",
            file.display()
        ));
        let until = Instant::now() + BLOCK_DEADLINE;
        let mut printed = Vec::new();
        loop {
            let line = self.next_line(what, until, &printed);
            if line == DONE {
                break;
            }
            printed.push(line);
        }
        if printed.last().is_some_and(String::is_empty) {
            printed.pop();
        }
        printed
    }

    /// The value of a shell variable.
    pub(crate) fn var(&mut self, name: &str) -> String {
        self.run(
            &format!("reading ${name}"),
            &format!("printf '%s\\n' \"${{{name}:-}}\"\n"),
        )
        .join("\n")
    }
}
