//! Rebuilds this crate when a migration is added under migrations/events or
//! migrations/bus: `embed_migrations!` reads the directories at compile time, and Cargo
//! does not know to look at them.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations/events");
    println!("cargo:rerun-if-changed=../../migrations/bus");
}
