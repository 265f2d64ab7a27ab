//! Identity's schema, embedded for both backends; `coffer migrate` and start-up run it.

use coffer_store::Migrations;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/identity/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/identity/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "identity",
    includes: &[coffer_events::MIGRATIONS, coffer_partners::MIGRATIONS],
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};
