//! The README's shell blocks: which are there, how each is known and cut at the lines the
//! test does itself, and what a block printed.

use serde_json::Value;

/// A README block, known by its first line, and what the test checks after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Block {
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
    Stripe,
}

pub(crate) const BLOCKS: &[(&str, Block)] = &[
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
    ("scripts/localstripe.sh", Block::Stripe),
];

/// The shell blocks (```` ```sh ````, or `bash`, `shell`, `console`) of a Markdown text, in
/// order.
pub(crate) fn sh_blocks(markdown: &str) -> Vec<String> {
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
pub(crate) fn handling(block: &str) -> Block {
    let first = block.lines().next().unwrap_or_default();
    BLOCKS
        .iter()
        .find(|(start, _)| first.starts_with(start))
        .map(|(_, b)| *b)
        .unwrap_or_else(|| {
            panic!(
                "README block starting `{first}` has no handling in services/coffer/tests/readme/blocks.rs (BLOCKS); \
                 every shell block must be run"
            )
        })
}

/// A piece of a block: shell text, or what the test does instead of a line.
#[derive(Debug)]
pub(crate) enum Piece {
    Shell(String),
    StartDev(Vec<String>),
    Skip(String),
    SignIn,
}

/// A block cut at the lines the test does itself, with the text substitutions made in
/// the rest.
pub(crate) fn pieces(block: &str, coffer: &str, receiver_port: u16) -> Vec<Piece> {
    pub(crate) fn flush(shell: &mut String, out: &mut Vec<Piece>) {
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
pub(crate) fn assigned(block: &str) -> Vec<String> {
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

/// What a block printed: each JSON value (jq's output, over several lines or one) and
/// each other line as a string.
pub(crate) fn printed_values(lines: &[String]) -> Vec<Value> {
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
