use crate::StoreError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// Where a database URL points. The scheme picks the backend: `postgres://` or
/// `postgresql://` for PostgreSQL, `sqlite://<path>` (relative) or `sqlite:///<path>`
/// (absolute) for an SQLite file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    Postgres(String),
    Sqlite(String),
}

pub(crate) fn parse(url: &str) -> Result<Target, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Target::Postgres(url.to_owned()));
    }
    if let Some(path) = url.strip_prefix("sqlite://") {
        if path.is_empty() || path == ":memory:" {
            // A pool hands out several connections, and each would see its own empty
            // in-memory database.
            return Err(StoreError::Url("sqlite needs a file path".into()));
        }
        return Ok(Target::Sqlite(path.to_owned()));
    }
    Err(StoreError::Url(
        "expected postgres://, postgresql:// or sqlite://<path>".into(),
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scheme_picks_backend() {
        assert_eq!(
            parse("postgres://u@h/db").unwrap(),
            Target::Postgres("postgres://u@h/db".into())
        );
        assert_eq!(
            parse("sqlite://data/x.db").unwrap(),
            Target::Sqlite("data/x.db".into())
        );
        assert_eq!(
            parse("sqlite:///tmp/x.db").unwrap(),
            Target::Sqlite("/tmp/x.db".into())
        );
        assert!(parse("mysql://h/db").is_err());
        assert!(parse("sqlite://").is_err());
    }
}
