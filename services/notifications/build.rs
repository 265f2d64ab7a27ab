//! Rebuilds this crate when a migration is added under migrations/notifications:
//! `embed_migrations!` reads the directory at compile time, and Cargo does not know to look
//! at it.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations/notifications");
}
