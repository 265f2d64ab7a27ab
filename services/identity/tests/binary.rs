//! `coffer-identity` as a deployment starts it: settings from the environment, checked
//! before anything else happens.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_coffer-identity");

fn run(env: &[(&str, &str)]) -> (i32, String) {
    run_command("migrate", env)
}

fn run_command(command: &str, env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = Command::new(BIN);
    cmd.arg(command)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_invalid_setting_stops_the_binary_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/identity.db", dir.path().display());
    let cases = [
        (vec![], "database_url"),
        (vec![("COFFER_DATABASE_URL", "mysql://x")], "database_url"),
        (
            vec![
                ("COFFER_DATABASE_URL", db.as_str()),
                ("COFFER_HTTP__LISTEN", "nope"),
            ],
            "http.listen",
        ),
        (
            vec![
                ("COFFER_DATABASE_URL", db.as_str()),
                ("COFFER_HTTP__WORKERS", "many"),
            ],
            "HTTP.WORKERS",
        ),
        (
            vec![
                ("COFFER_DATABASE_URL", db.as_str()),
                ("COFFER_TOKEN__LIFETIME_SECS", "5"),
            ],
            "token.lifetime_secs",
        ),
        (
            vec![
                ("COFFER_DATABASE_URL", db.as_str()),
                ("COFFER_HTTP__TRUSTED_PROXIES", "10.0.0.0/8,the-gateway"),
            ],
            "http.trusted_proxies",
        ),
        (
            vec![
                ("COFFER_DATABASE_URL", db.as_str()),
                ("COFFER_TOKEN_FAILURES__PER_CLIENT", "0"),
            ],
            "token_failures.per_client",
        ),
        (
            vec![
                ("COFFER_DATABASE_URL", db.as_str()),
                ("COFFER_CONFIG", "/nonexistent.toml"),
            ],
            "COFFER_CONFIG",
        ),
    ];
    for (env, setting) in cases {
        let (code, stderr) = run(&env);
        assert_eq!(code, 2, "{env:?}: {stderr}");
        assert!(
            stderr.contains(setting),
            "{env:?} should name {setting}: {stderr}"
        );
    }
}

#[test]
fn serve_refuses_to_start_without_a_broker() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/identity.db", dir.path().display());
    let (code, stderr) = run_command("serve", &[("COFFER_DATABASE_URL", db.as_str())]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("kafka.brokers"), "{stderr}");
}

#[test]
fn migrate_succeeds_with_a_valid_configuration_file() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("identity.toml");
    std::fs::write(
        &toml,
        format!(
            "database_url = \"sqlite://{}/identity.db\"\n[http]\nlisten = \"127.0.0.1:0\"\n\
             trusted_proxies = [\"127.0.0.1\", \"10.0.0.0/8\"]\n\
             [token_failures]\nper_client = 5\nwindow_secs = 60\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let (code, stderr) = run(&[("COFFER_CONFIG", toml.to_str().unwrap())]);
    assert_eq!(code, 0, "{stderr}");
    assert!(dir.path().join("identity.db").exists());
}

#[test]
fn serve_refuses_to_start_without_a_master_key_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/identity.db", dir.path().display());
    let base = [
        ("COFFER_DATABASE_URL", db.as_str()),
        ("COFFER_KAFKA__BROKERS", "127.0.0.1:9"),
    ];
    let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    let two = format!("a:{key},b:{key}");
    let cases: [(&[(&str, &str)], &str); 4] = [
        (&[], "secrets.keys"),
        (&[("COFFER_SECRETS__KEYS", "a:tooshort")], "secrets.keys"),
        (&[("COFFER_SECRETS__KEYS", two.as_str())], "secrets.current"),
        (
            &[
                ("COFFER_SECRETS__KEYS", two.as_str()),
                ("COFFER_SECRETS__CURRENT", "c"),
            ],
            "secrets.current",
        ),
    ];
    for (extra, setting) in cases {
        let env: Vec<_> = base.iter().chain(extra.iter()).copied().collect();
        let (code, stderr) = run_command("serve", &env);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(
            stderr.contains(setting),
            "{extra:?} should name {setting}: {stderr}"
        );
        assert!(!stderr.contains(key), "a key is never echoed: {stderr}");
    }
    // `migrate` reads no secret, and needs no key.
    let (code, stderr) = run(&[("COFFER_DATABASE_URL", db.as_str())]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn serve_refuses_to_start_without_an_sso_issuer_and_checks_its_form() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/identity.db", dir.path().display());
    let base = [
        ("COFFER_DATABASE_URL", db.as_str()),
        ("COFFER_KAFKA__BROKERS", "127.0.0.1:9"),
        (
            "COFFER_SECRETS__KEYS",
            "a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        ),
    ];
    // Without it, ID tokens would name whatever host a client sent.
    let (code, stderr) = run_command("serve", &base);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("sso.issuer"), "{stderr}");
    for bad in [
        "auth.example.org",
        "https://auth.example.org/",
        "ftp://x",
        "https://a/?q=1",
    ] {
        let env: Vec<_> = base
            .iter()
            .copied()
            .chain([("COFFER_SSO__ISSUER", bad)])
            .collect();
        let (code, stderr) = run_command("serve", &env);
        assert_eq!(code, 2, "{bad}: {stderr}");
        assert!(stderr.contains("sso.issuer"), "{bad}: {stderr}");
    }
}

/// The settings `serve` needs besides a database, with migrations left to another step
/// (the migration Jobs of k8s/).
fn serve_without_migrating<'a>(
    db: &'a str,
    listen: &'a str,
    wait: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("COFFER_DATABASE_URL", db),
        ("COFFER_KAFKA__BROKERS", "127.0.0.1:9"),
        ("COFFER_SSO__ISSUER", "http://127.0.0.1"),
        (
            "COFFER_SECRETS__KEYS",
            "a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        ),
        ("COFFER_HTTP__LISTEN", listen),
        ("COFFER_SERVE__MIGRATE", "false"),
        ("COFFER_SERVE__MIGRATIONS_WAIT_SECONDS", wait),
    ]
}

#[test]
fn serve_that_does_not_migrate_waits_for_the_migrations_and_gives_up_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/identity.db", dir.path().display());
    // Nothing has migrated: serve applies nothing, waits its bound, and names the way out.
    let (code, stderr) = run_command("serve", &serve_without_migrating(&db, "127.0.0.1:0", "3"));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("migrations pending") && stderr.contains("migrate"),
        "{stderr}"
    );
    let (code, stderr) = run_command("serve", &serve_without_migrating(&db, "127.0.0.1:0", "0"));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("serve.migrations_wait_seconds"), "{stderr}");

    // Once `migrate` has run, the same serve opens its port (on a real broker: serve
    // creates its topics before it listens).
    let (code, stderr) = run(&[("COFFER_DATABASE_URL", db.as_str())]);
    assert_eq!(code, 0, "{stderr}");
    let Some(brokers) = coffer_testkit::kafka_brokers() else {
        return;
    };
    let prefix = format!("t{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let mut cmd = Command::new(BIN);
    cmd.arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    for (k, v) in serve_without_migrating(&db, &listen, "30") {
        cmd.env(k, v);
    }
    cmd.env("COFFER_KAFKA__BROKERS", &brokers)
        .env("COFFER_EVENTS__PREFIX", &prefix);
    let mut child = cmd.spawn().unwrap();
    let mut live = false;
    for _ in 0..600 {
        if let Ok(mut stream) = std::net::TcpStream::connect(&listen) {
            use std::io::{Read, Write};
            stream
                .write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .unwrap();
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
            live = answer.starts_with("HTTP/1.1 200");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(live, "serve opens its port once the schema is migrated");
}
