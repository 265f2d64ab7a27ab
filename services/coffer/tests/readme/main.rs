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

#[path = "../common/mod.rs"]
mod common;

mod blocks;
mod dev;
mod promises;
mod shell;

use std::path::PathBuf;
use std::time::Instant;

use blocks::{BLOCKS, Block, Piece, assigned, handling, pieces, printed_values, sh_blocks};
use dev::{Dev, require_tools};
use promises::{EMAIL, PASSWORD, check, sign_in};
use shell::{BLOCK_DEADLINE, Shell};

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
        if matches!(block, Block::WebhookRestart | Block::Stripe) {
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
