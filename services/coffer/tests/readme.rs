//! README.md's walk-through, run as a newcomer runs it: every ```` ```sh ```` block in order,
//! in one bash session (variables carry from block to block, as in one terminal) under
//! `set -euo pipefail`, against a fresh `coffer dev` in a directory of its own, which holds
//! links to the repository's `scripts/` and `docs/` as a clone would. Only what
//! [`SUBSTITUTIONS`] lists is changed, and it is printed first. Each block is known by its
//! first line ([`BLOCKS`]): a block the test has no handling for fails it, so no block goes
//! untried. Beside every command succeeding, the outcomes the prose promises are checked.
//!
//! Tools: bash, curl, jq and openssl from the machine (the walk-through asks for jq, which
//! this project's machine image installs from Debian's packages); a missing one fails the
//! test naming its package, never skips it. Python is the checkers' venv
//! (`COFFER_TEST_CHECKERS`, scripts/checkers.sh), which pins the `standardwebhooks` the
//! README installs with pip.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::browser;
use rustix::process::{Pid, Signal};
use serde_json::Value;

/// What the test changes in the README's blocks: (what the README says, what runs
/// instead, why).
const SUBSTITUTIONS: &[(&str, &str, &str)] = &[
    (
        "the clone's root as the working directory",
        "a fresh directory holding links to the clone's scripts/ and docs/",
        "data/, cert.pem and delivery.json land outside the checkout, and coffer dev starts \
         fresh",
    ),
    (
        "cargo run --release -p coffer --, cargo run -q --release -p coffer --",
        "the coffer binary of this test build",
        "the test runs what it built; cargo would build a release binary first",
    ),
    (
        "cargo run --release -p coffer -- dev [flags] (two blocks)",
        "that binary started by the test in the background with the same flags and \
         --listen 127.0.0.1:<free port>, waited for until it answers",
        "the README gives it a terminal of its own; 8080 may be taken",
    ),
    (
        "stop the coffer dev started above (Ctrl-C)",
        "SIGINT to it, and its exit awaited",
        "there is no terminal to press Ctrl-C in",
    ),
    ("make test", "skipped", "this test is part of it"),
    (
        "pip install standardwebhooks==1.1.0",
        "skipped: python3 is the checkers' venv (COFFER_TEST_CHECKERS first on PATH), \
         which pins the same version",
        "nothing is installed into the machine's Python",
    ),
    (
        "8443 (the webhook receiver's port)",
        "a free port",
        "8443 may be taken",
    ),
    (
        "open action.url in a browser and press Approve",
        "action.url fetched and its Approve form posted; the answer must send the browser \
         to return_url",
        "no browser",
    ),
    (
        "CODE=... (open the authorize address, sign in as ann@alpine-aid.example)",
        "the address the block prints fetched, its login form posted with Ann's e-mail and \
         the password the onboarding block chose, CODE= the code of the redirect's Location",
        "no browser",
    ),
    (
        "in another shell",
        "the same shell",
        "its variables are the ones the README says to set",
    ),
];

/// A README block, known by its first line, and what the test checks after it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Block {
    Start,
    FirstCalls,
    Donations,
    Search,
    MonthlyGiving,
    WebhookRestart,
    Webhooks,
    Partner,
    Onboarding,
    PartnerReads,
    SingleSignOn,
    Blueprint,
    Upload,
    Report,
    Operators,
}

const BLOCKS: &[(&str, Block)] = &[
    ("cargo run --release -p coffer -- dev", Block::Start),
    ("C=data/credentials.json", Block::FirstCalls),
    ("ACCOUNT=$(jq -r '.account_uuids[0]' $C)", Block::Donations),
    ("curl -s -X POST \"$BASE/search/payments\"", Block::Search),
    (
        "SOURCE=$(curl -s -X POST \"$BASE/payment-sources\"",
        Block::MonthlyGiving,
    ),
    ("pip install standardwebhooks==1.1.0", Block::WebhookRestart),
    ("HOOK=$(curl -s -X POST \"$BASE/webhooks\"", Block::Webhooks),
    (
        "COFFER=\"cargo run -q --release -p coffer --\"",
        Block::Partner,
    ),
    (
        "ADDR='{\"address_line1\": \"Bahnhofstrasse 1\"",
        Block::Onboarding,
    ),
    (
        "NEWORG=$(curl -s \"$BASE/partner-integrations\"",
        Block::PartnerReads,
    ),
    ("echo \"$BASE/oauth2/authorize?", Block::SingleSignOn),
    ("ACC=$(jq -r '.account_uuids[0]' $C)", Block::Blueprint),
    (
        "CRED=$(curl -s \"$BASE/reconciliation/sources/$SRC/file-upload-credentials\"",
        Block::Upload,
    ),
    (
        "until R=$(curl -s \"$BASE/reconciliation/reports?account_uuid=$ACC\"",
        Block::Report,
    ),
    (
        "ORG2=$(cargo run -q --release -p coffer -- admin organisation create",
        Block::Operators,
    ),
];

/// How long one block may take: its loops wait on the server, which a loaded machine
/// slows, and a block that hangs must still end the test with its name.
const BLOCK_DEADLINE: Duration = Duration::from_secs(180);

const EMAIL: &str = "ann@alpine-aid.example";
const PASSWORD: &str = "correct horse battery";

/// The shell blocks (```` ```sh ````, or `bash`, `shell`, `console`) of a Markdown text, in
/// order.
fn sh_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```sh" | "```bash" | "```shell" | "```console") => current = Some(Vec::new()),
            (Some(lines), "```") => {
                blocks.push(lines.join("\n"));
                current = None;
            }
            (Some(lines), _) => lines.push(line),
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "README.md has an unclosed shell block");
    blocks
}

/// The handling of a block, by its first line; none fails the test.
fn handling(block: &str) -> Block {
    let first = block.lines().next().unwrap_or_default();
    BLOCKS
        .iter()
        .find(|(start, _)| first.starts_with(start))
        .map(|(_, b)| *b)
        .unwrap_or_else(|| {
            panic!(
                "README block starting `{first}` has no handling in services/coffer/tests/readme.rs (BLOCKS); \
                 every shell block must be run"
            )
        })
}

/// A piece of a block: shell text, or what the test does instead of a line.
#[derive(Debug)]
enum Piece {
    Shell(String),
    StartDev(Vec<String>),
    Skip(String),
    SignIn,
}

/// A block cut at the lines the test does itself, with the text substitutions made in
/// the rest.
fn pieces(block: &str, coffer: &str, receiver_port: u16) -> Vec<Piece> {
    fn flush(shell: &mut String, out: &mut Vec<Piece>) {
        if !shell.trim().is_empty() {
            out.push(Piece::Shell(std::mem::take(shell)));
        }
        shell.clear();
    }
    let mut out = Vec::new();
    let mut shell = String::new();
    for line in block.lines() {
        let command = line.split('#').next().unwrap().trim();
        if let Some(flags) = command.strip_prefix("cargo run --release -p coffer -- dev") {
            flush(&mut shell, &mut out);
            out.push(Piece::StartDev(
                flags.split_whitespace().map(str::to_owned).collect(),
            ));
        } else if command == "make test" || command == "pip install standardwebhooks==1.1.0" {
            flush(&mut shell, &mut out);
            out.push(Piece::Skip(command.to_owned()));
        } else if command == "CODE=..." {
            flush(&mut shell, &mut out);
            out.push(Piece::SignIn);
        } else {
            let line = line
                .replace("cargo run -q --release -p coffer --", coffer)
                .replace("cargo run --release -p coffer --", coffer)
                .replace("8443", &receiver_port.to_string());
            shell.push_str(&line);
            shell.push('\n');
        }
    }
    flush(&mut shell, &mut out);
    out
}

/// The names a block assigns at the start of a line (`TOKEN=$(…)`, `until R=$(…)`).
fn assigned(block: &str) -> Vec<String> {
    block
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("until ").unwrap_or(line);
            let (name, _) = line.split_once('=')?;
            let upper = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_';
            (!name.is_empty() && name.chars().all(upper)).then(|| name.to_owned())
        })
        .collect()
}

/// The end of a program's output, for a failure's message.
fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

/// A newcomer's environment: no `COFFER_*` setting of the test run (a data directory, an
/// address, master keys) reaches the walk-through.
fn without_coffer_settings(command: &mut Command) {
    for (name, _) in std::env::vars() {
        if name.starts_with("COFFER_") {
            command.env_remove(&name);
        }
    }
}

/// One bash session the blocks run in, fed step by step through its stdin.
struct Shell {
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

const DONE: &str = "@@readme-step-done@@";

impl Shell {
    fn start(cwd: &Path, path: &str, scripts: PathBuf) -> Shell {
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
             trap 'echo \"readme.rs: line $LINENO failed with $?: $BASH_COMMAND\" >&2' ERR\n",
        );
        shell
    }

    fn send(&mut self, text: &str) {
        self.stdin.write_all(text.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn stderr_tail(&self) -> String {
        last_lines(&self.stderr.lock().unwrap())
    }

    /// The next line the session prints, within `deadline`.
    fn next_line(&mut self, what: &str, until: Instant, seen: &[String]) -> String {
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
    fn run(&mut self, what: &str, script: &str) -> Vec<String> {
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
    fn var(&mut self, name: &str) -> String {
        self.run(
            &format!("reading ${name}"),
            &format!("printf '%s\\n' \"${{{name}:-}}\"\n"),
        )
        .join("\n")
    }
}

/// What a block printed: each JSON value (jq's output, over several lines or one) and
/// each other line as a string.
fn printed_values(lines: &[String]) -> Vec<Value> {
    let mut values = Vec::new();
    let mut pending = String::new();
    for line in lines {
        if pending.is_empty() {
            if let Ok(v) = serde_json::from_str::<Value>(line) {
                values.push(v);
                continue;
            }
            if !(line.starts_with('{') || line.starts_with('[')) {
                values.push(Value::String(line.clone()));
                continue;
            }
        }
        pending.push_str(line);
        pending.push('\n');
        if let Ok(v) = serde_json::from_str::<Value>(&pending) {
            values.push(v);
            pending.clear();
        }
    }
    assert!(pending.is_empty(), "unfinished JSON printed: {pending}");
    values
}

fn require_tools() {
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
struct Dev {
    cwd: PathBuf,
    port: u16,
    server: Option<common::Server>,
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
    fn log(&self) -> PathBuf {
        self.cwd.join("coffer-dev.log")
    }

    async fn start(&mut self, flags: &[String]) {
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
    async fn stop(&mut self) {
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
struct Api {
    base: String,
    token: String,
}

impl Api {
    fn of(shell: &mut Shell, token_var: &str) -> Api {
        Api {
            base: shell.var("BASE"),
            token: shell.var(token_var),
        }
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        common::get(&self.base, path, &self.token).await
    }

    /// Waits (bounded) until `path` answers 200 with what `done` looks for.
    async fn until(&self, path: &str, done: impl Fn(&Value) -> bool) -> Value {
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

/// The browser step of the 3-D Secure card: open action.url, press Approve, land on
/// return_url; the payment has succeeded.
async fn approve(shell: &mut Shell, asked: &Value) {
    assert_eq!(asked["status"], "pending", "{asked}");
    let url = asked["action"]["url"].as_str().expect("action.url");
    let page = browser::open(url).await;
    let answer = page.submit(&page.form(">Approve<"), &[]).await;
    let landed = browser::location(&answer);
    assert!(
        landed.as_str().starts_with("https://example.org/thanks"),
        "{landed}"
    );
    let api = Api::of(shell, "TOKEN");
    let uuid = asked["uuid"].as_str().unwrap();
    api.until(&format!("/payments/{uuid}"), |p| p["status"] == "succeeded")
        .await;
}

/// The browser step of single sign-on: open the address the block printed, sign in as
/// Ann, and the code from where the browser lands.
async fn sign_in(printed: &[String]) -> String {
    let url = printed
        .iter()
        .rev()
        .find(|l| l.contains("/oauth2/authorize?"))
        .expect("the block prints the authorize address");
    let page = browser::open(url).await;
    let form = page.form("name=\"password\"");
    let answer = page
        .submit(&form, &[("email", EMAIL), ("password", PASSWORD)])
        .await;
    let landed = browser::location(&answer);
    assert!(
        landed
            .as_str()
            .starts_with("http://127.0.0.1:9000/callback?"),
        "{landed}"
    );
    let query: std::collections::HashMap<_, _> = landed.query_pairs().into_owned().collect();
    assert_eq!(query.get("state").map(String::as_str), Some("xyz"));
    query["code"].clone()
}

/// What the prose promises of a block's outcome.
async fn check(block: Block, shell: &mut Shell, values: &[Value]) {
    let json: Vec<&Value> = values.iter().filter(|v| !v.is_string()).collect();
    for v in &json {
        // An error body in any of docs/errors.md's shapes.
        let only_message = v
            .as_object()
            .is_some_and(|o| o.len() == 1 && o.contains_key("message"));
        let error =
            v["error"].is_object() || v.get("errors").is_some() || v.get("http_code").is_some();
        assert!(!error && !only_message, "{block:?} printed an error: {v}");
    }
    match block {
        Block::Start | Block::WebhookRestart | Block::Partner | Block::Blueprint => {}
        Block::FirstCalls => {
            let org = shell.var("ORG");
            assert_eq!(
                json[0]["uuid"],
                org.as_str(),
                "the organisation: {}",
                json[0]
            );
            assert_eq!(
                json[1].as_array().map(Vec::len),
                Some(2),
                "two accounts: {}",
                json[1]
            );
            assert!(json[2]["iban"].is_string(), "the billing data: {}", json[2]);
        }
        Block::Donations => {
            assert_eq!(json[0]["status"], "succeeded", "{}", json[0]);
            assert_eq!(json[1]["amount"]["value"], "300", "the refund: {}", json[1]);
            approve(shell, json[2]).await;
        }
        Block::Search => {
            let buckets = &json[0]["aggregations"]["methods"];
            assert!(
                buckets
                    .as_array()
                    .is_some_and(|b| b.iter().any(|b| b["key"] == "card")),
                "a count of card payments: {}",
                json[0]
            );
        }
        Block::MonthlyGiving => {
            assert_eq!(json[0]["status"], "advancing", "{}", json[0]);
            assert_eq!(json[1]["status"], "ready", "{}", json[1]);
            let invoices = json[2].as_array().expect("the invoices");
            assert_eq!(invoices.len(), 4, "four invoices: {}", json[2]);
            assert!(
                invoices.iter().all(|i| i["status"] == "paid"),
                "all paid: {}",
                json[2]
            );
            assert_eq!(json[3]["subscription_status"], "active", "{}", json[3]);
        }
        Block::Webhooks => {
            assert_eq!(json[0]["enabled"], "true", "the subscription: {}", json[0]);
            assert!(
                values.contains(&Value::String("verified".into())),
                "{values:?}"
            );
            let org = shell.var("ORG");
            let api = Api::of(shell, "TOKEN");
            // The try the receiver answered is logged with its answer.
            api.until(
                &format!("/webhook-responses?organisation_uuid={org}"),
                |tries| tries[0]["status_code"] == 200,
            )
            .await;
        }
        Block::Onboarding => {
            assert_eq!(values[0], Value::from(404), "no user yet: {values:?}");
            assert_eq!(json[1]["status"], "completed", "the execution: {}", json[1]);
        }
        Block::PartnerReads => {
            assert_eq!(json[0]["name"], "Alpine Aid", "{}", json[0]);
        }
        Block::SingleSignOn => {
            assert_eq!(json[0]["email"], EMAIL, "the ID token: {}", json[0]);
        }
        Block::Upload => {
            assert_eq!(values, [Value::from(204)], "the store answers 204");
        }
        Block::Report => {
            let report = json[0];
            assert_eq!(report["status"], "processed", "{report}");
            let created = report["created"].as_array().expect("created entries");
            assert_eq!(created.len(), 1, "{report}");
            // The collection Coffer did not start is recorded as a payment.
            let debit = created[0]["debit_uuid"].as_str().expect("debit_uuid");
            let api = Api::of(shell, "TOKEN");
            let paid = api
                .until(&format!("/payments/{debit}"), |p| {
                    p["status"] == "succeeded"
                })
                .await;
            assert_eq!(paid["payment_method"], "sepa_dd", "{paid}");
        }
        Block::Operators => {
            let client = json.last().expect("the client");
            let base = shell.var("BASE");
            let token = common::token(
                &base,
                client["client_id"].as_str().unwrap(),
                client["client_secret"].as_str().unwrap(),
            )
            .await;
            let org = shell.var("ORG");
            let (status, body) = common::get(&base, &format!("/organisations/{org}"), &token).await;
            assert_eq!(
                status, 403,
                "the second organisation reads the first: {body}"
            );
        }
    }
}

/// The walk-through under way: its shell, its server, and the receiver's port.
struct Walk {
    shell: Shell,
    dev: Dev,
    receiver_port: u16,
}

impl Walk {
    /// Runs one README block, the test's pieces in place of the lines it substitutes,
    /// and checks what the prose promises of it.
    async fn block(&mut self, block: Block, text: &str) {
        let what = format!(
            "README block {block:?} (`{}`)",
            text.lines().next().unwrap()
        );
        println!("\n=== {what}");
        if block == Block::WebhookRestart {
            self.dev.stop().await;
        }
        let mut printed = Vec::new();
        for piece in pieces(text, common::COFFER, self.receiver_port) {
            match piece {
                Piece::Shell(script) => {
                    printed.extend(self.shell.run(&what, &script));
                    if script.contains("webhook-receiver.py serve") {
                        self.receiver_listens(&what, &mut printed);
                    }
                }
                Piece::StartDev(flags) => self.dev.start(&flags).await,
                Piece::Skip(command) => println!("(skipped: {command})"),
                Piece::SignIn => {
                    let code = sign_in(&printed).await;
                    self.shell.run(&what, &format!("CODE='{code}'\n"));
                }
            }
        }
        println!("{}", printed.join("\n"));
        for name in assigned(text) {
            let value = self.shell.var(&name);
            assert!(
                !value.is_empty() && value != "null",
                "{what} left ${name} {value:?}"
            );
        }
        check(block, &mut self.shell, &printed_values(&printed)).await;
    }

    /// The receiver the README starts in the background prints its port once it listens;
    /// the next line must not go to it sooner. Its line is no output of the block.
    fn receiver_listens(&mut self, what: &str, printed: &mut Vec<String>) {
        let port_line = format!("{{\"port\": {}}}", self.receiver_port);
        let until = Instant::now() + BLOCK_DEADLINE;
        while !printed.contains(&port_line) {
            let line = self.shell.next_line(what, until, printed);
            printed.push(line);
        }
        printed.retain(|l| *l != port_line);
    }
}

#[tokio::test]
async fn the_readme_walk_through_runs_as_written() {
    println!("The README's shell blocks run with these substitutions:");
    for (what, instead, why) in SUBSTITUTIONS {
        println!("- {what}\n    -> {instead}\n    ({why})");
    }
    require_tools();
    let checkers = std::env::var("COFFER_TEST_CHECKERS").expect(
        "COFFER_TEST_CHECKERS names the checkers' bin directory (scripts/checkers.sh; make test sets it)",
    );
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    for typed in [EMAIL, PASSWORD] {
        assert!(
            readme.contains(typed),
            "the sign-in types {typed:?}, which README.md no longer has"
        );
    }
    let blocks = sh_blocks(&readme);
    let handled: Vec<Block> = blocks.iter().map(|b| handling(b)).collect();
    for (start, block) in BLOCKS {
        assert!(
            handled.contains(block),
            "BLOCKS names {start:?}, which README.md no longer has"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("coffer");
    let scripts = dir.path().join("steps");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&scripts).unwrap();
    for linked in ["scripts", "docs"] {
        std::os::unix::fs::symlink(repo.join(linked).canonicalize().unwrap(), cwd.join(linked))
            .unwrap();
    }
    let path = format!("{checkers}:{}", std::env::var("PATH").unwrap_or_default());
    let mut walk = Walk {
        shell: Shell::start(&cwd, &path, scripts),
        dev: Dev {
            cwd: cwd.clone(),
            port: common::free_port(),
            server: None,
        },
        receiver_port: common::free_port(),
    };
    for (block, text) in handled.iter().copied().zip(&blocks) {
        walk.block(block, text).await;
    }
    walk.dev.stop().await;
}
