//! What `coffer dev` writes, read from pipes as a supervisor or a log file gets it: the
//! demo client's secret once, on the start that made the client, and never in JSON output;
//! the log level of `COFFER_LOG__LEVEL` (with `RUST_LOG` winning), a wrong one refused by
//! name; and no terminal colour codes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

/// Starts `coffer dev`, waits until it serves, stops it: its credentials and its output.
async fn run_once(data: &Path, args: &[&str], env: &[(&str, &str)]) -> (Value, Written) {
    let mut dev = start_captured(data, args, env);
    let c = credentials(data, &mut dev.server).await;
    (c, dev.stop())
}

fn secret(c: &Value) -> &str {
    c["client_secret"].as_str().unwrap()
}

fn assert_plain(out: &Written) {
    assert!(
        !out.stdout.contains("\x1b["),
        "colour codes in stdout: {}",
        out.stdout
    );
    assert!(
        !out.stderr.contains("\x1b["),
        "colour codes in stderr: {}",
        out.stderr
    );
}

fn info_lines(out: &Written) -> Vec<&str> {
    out.stderr
        .lines()
        .filter(|l| l.contains(" INFO "))
        .collect()
}

#[tokio::test]
async fn the_secret_is_printed_once_when_the_client_is_made_and_nothing_is_coloured() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");

    let (c, first) = run_once(&data, &[], &[]).await;
    let shown = first.lines().filter(|l| l.contains(secret(&c))).count();
    assert_eq!(shown, 1, "{}{}", first.stdout, first.stderr);
    assert!(first.stdout.contains(c["client_id"].as_str().unwrap()));
    assert_plain(&first);
    // Logs at info, so the check for colour codes has lines to look at.
    assert!(!info_lines(&first).is_empty(), "{}", first.stderr);

    let (again, second) = run_once(&data, &[], &[]).await;
    assert_eq!(secret(&again), secret(&c), "the same client");
    assert!(
        !second.lines().any(|l| l.contains(secret(&c))),
        "{}",
        second.stdout
    );
    for shown in [
        c["client_id"].as_str().unwrap(),
        c["organisation_uuid"].as_str().unwrap(),
        c["account_uuids"][0].as_str().unwrap(),
        "credentials.json",
    ] {
        assert!(
            second.stdout.contains(shown),
            "{shown} in {}",
            second.stdout
        );
    }
    assert!(second.stdout.contains(again["base_url"].as_str().unwrap()));
    assert_plain(&second);
}

#[tokio::test]
async fn json_output_is_json_lines_without_the_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    for start in ["first", "second"] {
        let (c, out) = run_once(&data, &["--log-format", "json"], &[]).await;
        assert!(
            !out.lines().any(|l| l.contains(secret(&c))),
            "{start}: {}",
            out.stderr
        );
        assert!(!out.stderr.is_empty());
        for line in out.lines() {
            let parsed: Result<Value, _> = serde_json::from_str(line);
            assert!(parsed.is_ok(), "{start}: not JSON: {line}");
        }
        assert!(
            out.stderr.contains("credentials.json"),
            "{start}: {}",
            out.stderr
        );
        assert_plain(&out);
    }
}

#[tokio::test]
async fn the_log_level_comes_from_the_environment_and_a_wrong_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (_, quiet) = run_once(&data, &[], &[("COFFER_LOG__LEVEL", "warn")]).await;
    assert_eq!(info_lines(&quiet), Vec::<&str>::new());
    let json = ["--log-format", "json"];
    let (_, quiet) = run_once(&data, &json, &[("COFFER_LOG__LEVEL", "warn")]).await;
    assert!(
        !quiet.stderr.contains(r#""level":"INFO""#),
        "{}",
        quiet.stderr
    );

    // RUST_LOG wins, as for every Coffer binary.
    let env = [("COFFER_LOG__LEVEL", "warn"), ("RUST_LOG", "info")];
    let (_, loud) = run_once(&data, &[], &env).await;
    assert!(!info_lines(&loud).is_empty(), "{}", loud.stderr);

    for wrong in ["loud", "wran,coffer_payments=debug"] {
        let out = run_to_exit(&data, &[("COFFER_LOG__LEVEL", wrong)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            stderr.contains("COFFER_LOG__LEVEL") && stderr.contains("log.level"),
            "{stderr}"
        );
    }
}

#[tokio::test]
async fn a_start_that_fails_says_why_in_json_when_the_log_is_json() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // A master key of the wrong length stops the start once the log is set up.
    let env = [("COFFER_SECRETS__KEYS", "k2:c2hvcnQ=")];
    let mut dev = start_captured(&data, &["--log-format", "json"], &env);
    for _ in 0..600 {
        if dev.server.0.try_wait().unwrap().is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let status = dev
        .server
        .0
        .try_wait()
        .unwrap()
        .expect("coffer dev stopped");
    assert!(!status.success());
    let out = dev.stop();
    assert!(out.stderr.contains("32 bytes"), "{}", out.stderr);
    for line in out.lines() {
        let parsed: Result<Value, _> = serde_json::from_str(line);
        assert!(parsed.is_ok(), "not JSON: {line}");
    }
}
