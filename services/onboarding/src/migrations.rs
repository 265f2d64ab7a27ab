//! Onboarding's tables, embedded in the binary for both databases.

use coffer_store::Migrations;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/onboarding/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/onboarding/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "onboarding",
    includes: &[
        coffer_events::MIGRATIONS,
        coffer_store::idempotency::MIGRATIONS,
        coffer_directory::MIGRATIONS,
    ],
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};
