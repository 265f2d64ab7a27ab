//! The outbox and inbox tables, the one place their DDL lives. Every service that carries
//! events includes this set in its own (`Migrations::includes`); the bus's tables are a
//! set of their own (local_bus.rs), as the bus has a database of its own.

use coffer_store::Migrations;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/events/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/events/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "events",
    includes: &[],
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};
