use diesel::connection::SimpleConnection;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness};

use crate::{Conn, StoreError};

/// A service's migrations, embedded from `migrations/<service>/{postgres,sqlite}/`.
#[derive(Debug, Clone, Copy)]
pub struct Migrations {
    /// Names the PostgreSQL advisory lock, so replicas of one service starting together
    /// migrate one after another, while different services never wait on each other.
    pub service: &'static str,
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
            let result = c.run_pending_migrations((set.postgres)()).map(|v| v.len());
            c.batch_execute(&format!("SELECT pg_advisory_unlock({key})"))?;
            result
        }
        Conn::Sqlite(c) => c.run_pending_migrations((set.sqlite)()).map(|v| v.len()),
    };
    applied.map_err(|e| StoreError::Migration(e.to_string()))
}

/// A stable 63-bit key from the service name (FNV-1a), fixed across builds and platforms.
fn lock_key(service: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in service.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (hash >> 1) as i64
}
