use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};

/// Which database a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The PostgreSQL server tests may create databases on (`COFFER_TEST_POSTGRES_URL`).
pub fn postgres_url() -> Option<String> {
    std::env::var("COFFER_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
}

/// The Kafka-protocol broker tests may use (`COFFER_TEST_KAFKA_BROKERS`). As for PostgreSQL,
/// CI without one fails; a developer's `cargo test` without one skips those tests.
pub fn kafka_brokers() -> Option<String> {
    match std::env::var("COFFER_TEST_KAFKA_BROKERS")
        .ok()
        .filter(|b| !b.is_empty())
    {
        Some(brokers) => Some(brokers),
        None => {
            assert!(
                std::env::var_os("CI").is_none(),
                "COFFER_TEST_KAFKA_BROKERS is not set; `make test` sets it after starting the broker"
            );
            eprintln!("COFFER_TEST_KAFKA_BROKERS is not set: Kafka test not run");
            None
        }
    }
}

impl Backend {
    /// Whether the PostgreSQL variant runs. In CI a missing URL is a failure, never a
    /// silent pass; locally, `cargo test` without PostgreSQL runs the SQLite half only.
    pub fn postgres_enabled() -> bool {
        if postgres_url().is_some() {
            return true;
        }
        assert!(
            std::env::var_os("CI").is_none(),
            "COFFER_TEST_POSTGRES_URL is not set; `make test` sets it after starting PostgreSQL"
        );
        eprintln!("COFFER_TEST_POSTGRES_URL is not set: PostgreSQL variant not run");
        false
    }
}

/// A database that exists for one test and is removed when dropped.
pub struct TestDb {
    pub url: String,
    cleanup: Cleanup,
}

enum Cleanup {
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    Postgres { admin_url: String, name: String },
}

impl TestDb {
    pub fn create(backend: Backend) -> TestDb {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("temporary directory");
                let url = format!("sqlite://{}/test.db", dir.path().display());
                TestDb {
                    url,
                    cleanup: Cleanup::Sqlite(dir),
                }
            }
            Backend::Postgres => {
                let admin_url = postgres_url().expect("COFFER_TEST_POSTGRES_URL");
                let name = format!("coffer_t_{}", uuid::Uuid::new_v4().simple());
                let mut admin = PgConnection::establish(&admin_url).unwrap_or_else(|e| {
                    panic!("cannot reach PostgreSQL at COFFER_TEST_POSTGRES_URL ({admin_url}): {e}")
                });
                admin
                    .batch_execute(&format!("CREATE DATABASE {name}"))
                    .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
                let url = with_database(&admin_url, &name);
                TestDb {
                    url,
                    cleanup: Cleanup::Postgres { admin_url, name },
                }
            }
        }
    }
}

/// Swaps the database name (the last path segment) of a PostgreSQL URL.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let authority_end = base.find("://").map_or(0, |i| i + 3);
    let path_start = base[authority_end..].find('/').map(|i| authority_end + i);
    let mut out = match path_start {
        Some(i) => format!("{}/{name}", &base[..i]),
        None => format!("{base}/{name}"),
    };
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Cleanup::Postgres { admin_url, name } = &self.cleanup {
            // FORCE ends the pool connections the test server still holds.
            if let Ok(mut admin) = PgConnection::establish(admin_url) {
                let _ =
                    admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn replaces_database_name() {
        assert_eq!(
            with_database("postgres://u@h:5432/base", "x"),
            "postgres://u@h:5432/x"
        );
        assert_eq!(
            with_database("postgres://u@h/base?sslmode=disable", "x"),
            "postgres://u@h/x?sslmode=disable"
        );
        assert_eq!(with_database("postgres://u@h", "x"), "postgres://u@h/x");
    }
}
