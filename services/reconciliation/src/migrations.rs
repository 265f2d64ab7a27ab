//! Reconciliation's tables, embedded in the binary for both databases.

use coffer_store::Migrations;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/reconciliation/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/reconciliation/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "reconciliation",
    includes: &[
        coffer_events::MIGRATIONS,
        coffer_store::idempotency::MIGRATIONS,
        coffer_directory::MIGRATIONS,
        coffer_partners::MIGRATIONS,
    ],
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};
