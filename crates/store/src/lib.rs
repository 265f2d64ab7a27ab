//! Diesel on PostgreSQL or SQLite behind one [`Store`].
//!
//! `#[derive(MultiConnection)]` cannot express `ON CONFLICT`, so Coffer keeps an enum of the
//! two connections ([`Db`]) and the [`db_run!`] macro, which expands the same diesel
//! block once per backend. Queries are written once; backend-only clauses go in a
//! `match` on [`Db`] instead.

mod batches;
mod conn;
mod error;
mod group_commit;
pub mod idempotency;
mod lookups;
mod migrate;
mod pools;
pub mod resealing;
mod search_lines;
mod searches;
pub mod slots;
mod sqlite;
mod sqlite_file;
mod store;
mod ttl_cache;
mod url;
mod write_tx;

pub use batches::Batches;
pub use conn::{Conn, Db};
pub use diesel;
pub use error::{StoreError, is_contention};
pub use lookups::{FindAll, FindOne, Lookups};
pub use migrate::Migrations;
pub use searches::SearchOptions;
pub use store::{PoolOptions, Store};
pub use ttl_cache::TtlCache;
pub use url::Backend;
pub use write_tx::WriteTx;

/// Runs `$body` with `$conn` rebound to the concrete diesel connection of each backend.
///
/// ```ignore
/// store.run(move |conn| db_run!(conn: { organisations::table.find(id).first::<Row>(conn) }))
/// ```
#[macro_export]
macro_rules! db_run {
    ($conn:ident: $body:block) => {
        match $conn {
            $crate::Db::Pg($conn) => {
                let $conn: &mut $crate::diesel::PgConnection = &mut **$conn;
                $body
            }
            $crate::Db::Sqlite($conn) => {
                let $conn: &mut $crate::diesel::SqliteConnection = &mut **$conn;
                $body
            }
        }
    };
}
