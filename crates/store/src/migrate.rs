use std::hash::Hasher;

use diesel::connection::SimpleConnection;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness};

use crate::{Conn, StoreError};

/// A service's migrations, embedded from `migrations/<service>/{postgres,sqlite}/`.
#[derive(Debug, Clone, Copy)]
pub struct Migrations {
    /// Names the PostgreSQL advisory lock, so replicas of one service starting together
    /// migrate one after another, while different services never wait on each other.
    pub service: &'static str,
    /// Sets owned by shared crates that this schema includes (the outbox and inbox of
    /// crates/events, the idempotency keys of this crate, the directory's replica). They
    /// run first, in order, under this set's lock. Their versions differ from every
    /// service's, as all of them share one `__diesel_schema_migrations` table.
    pub includes: &'static [Migrations],
    /// Functions rather than values: `EmbeddedMigrations` is neither `Clone` nor `Copy`,
    /// while a `const` made by `embed_migrations!` can be produced any number of times.
    pub postgres: fn() -> EmbeddedMigrations,
    pub sqlite: fn() -> EmbeddedMigrations,
}

pub(crate) fn run(conn: &mut Conn, set: &Migrations) -> Result<usize, StoreError> {
    let applied = match conn {
        Conn::Pg(c) => {
            let key = lock_key(set.service);
            c.batch_execute(&format!("SELECT pg_advisory_lock({key})"))?;
            let result = with_includes(set, &mut |s| {
                c.run_pending_migrations((s.postgres)()).map(|v| v.len())
            });
            c.batch_execute(&format!("SELECT pg_advisory_unlock({key})"))?;
            result
        }
        Conn::Sqlite(c) => with_includes(set, &mut |s| {
            c.run_pending_migrations((s.sqlite)()).map(|v| v.len())
        }),
    };
    applied.map_err(|e| StoreError::Migration(e.to_string()))
}

/// How many of `set`'s migrations (its included sets' too) are not applied yet.
pub(crate) fn pending(conn: &mut Conn, set: &Migrations) -> Result<usize, StoreError> {
    let pending = match conn {
        Conn::Pg(c) => with_includes(set, &mut |s| {
            c.pending_migrations((s.postgres)()).map(|v| v.len())
        }),
        Conn::Sqlite(c) => with_includes(set, &mut |s| {
            c.pending_migrations((s.sqlite)()).map(|v| v.len())
        }),
    };
    pending.map_err(|e| StoreError::Migration(e.to_string()))
}

type MigrationResult = diesel::migration::Result<usize>;

/// Runs `set`'s included sets depth first, then `set` itself; counts what was applied.
fn with_includes(
    set: &Migrations,
    run_one: &mut dyn FnMut(&Migrations) -> MigrationResult,
) -> MigrationResult {
    let mut applied = 0;
    for included in set.includes {
        applied += with_includes(included, run_one)?;
    }
    Ok(applied + run_one(set)?)
}

/// A stable 63-bit key from the service name (FNV-1a), fixed across builds and platforms.
fn lock_key(service: &str) -> i64 {
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(service.as_bytes());
    (hasher.finish() >> 1) as i64
}
