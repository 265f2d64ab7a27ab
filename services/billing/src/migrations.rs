//! Billing's tables, embedded in the binary for both databases.

use coffer_store::Migrations;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/billing/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/billing/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "billing",
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};
