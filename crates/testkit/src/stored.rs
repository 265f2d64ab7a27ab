//! What a test needs to look at what a service stored: master keys of known bytes, so a
//! test can seal, open and rotate as the service does, and rows read as text.

use coffer_secrets::{MasterKey, Secrets};
use coffer_store::Store;

/// Master keys `kid` of 32 bytes `byte` each, `current` sealing.
pub fn master_keys(keys: &[(&str, u8)], current: &str) -> Secrets {
    let keys = keys
        .iter()
        .map(|(kid, byte)| MasterKey::new(kid, &[*byte; 32]).unwrap())
        .collect();
    Secrets::new(keys, Some(current)).unwrap()
}

#[derive(diesel::QueryableByName)]
struct Text {
    #[diesel(sql_type = diesel::sql_types::Text)]
    text: String,
}

/// The first column, as text, of every row `sql` (the same text on both backends) selects
/// from `store`; the column must be named `text`.
pub async fn texts(store: &Store, sql: String) -> Vec<String> {
    let rows: Vec<Text> = store
        .query(move |db| coffer_store::db_run!(db: { diesel::RunQueryDsl::load(diesel::sql_query(sql), db) }))
        .await
        .unwrap();
    rows.into_iter().map(|r| r.text).collect()
}

/// Runs `sql` (the same text on both backends) against `store`: the rows it changed.
pub async fn execute(store: &Store, sql: String) -> usize {
    store
        .query(move |db| coffer_store::db_run!(db: { diesel::RunQueryDsl::execute(diesel::sql_query(sql), db) }))
        .await
        .unwrap()
}
