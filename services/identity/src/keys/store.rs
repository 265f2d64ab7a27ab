use coffer_store::resealing::scrubbed;
use coffer_store::{Db, WriteTx, db_run};
use diesel::prelude::*;

use crate::schema::signing_keys::dsl as k;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::signing_keys)]
pub struct KeyRow {
    pub kid: String,
    /// PKCS#8 DER sealed by coffer-secrets (`v1.<master kid>.<...>`); rows from before
    /// sealing hold the DER in plaintext base64 until the next start seals them. The
    /// column keeps its name so that code before sealing still reads it during a rollout.
    pub private_key_pkcs8: String,
    pub created: i64,
    pub retired_at: Option<i64>,
}

pub fn all(conn: &mut Db<'_>) -> QueryResult<Vec<KeyRow>> {
    db_run!(conn: { k::signing_keys.select(KeyRow::as_select()).order(k::created.asc()).load(conn) })
}

/// Adds `row` as the signing key and retires every other one, atomically, so there is
/// always exactly one key that signs.
pub fn rotate_to(conn: &mut Db<'_>, row: &KeyRow) -> QueryResult<()> {
    db_run!(conn: {
        conn.write_tx(|conn| {
            diesel::update(k::signing_keys.filter(k::retired_at.is_null()))
                .set(k::retired_at.eq(row.created))
                .execute(conn)?;
            diesel::insert_into(k::signing_keys).values(row).execute(conn)?;
            Ok(())
        })
    })
}

/// A stored key value to replace, if it still holds `was`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reseal {
    pub kid: String,
    pub was: String,
    pub now: String,
}

/// Replaces key values in one transaction; a row another replica changed first is left
/// alone. Returns how many rows changed. The replaced values are scrubbed from SQLite's
/// file ([`coffer_store::resealing::scrubbed`]); PostgreSQL keeps the old row version until
/// VACUUM (docs/decisions/secrets.md).
pub fn reseal(conn: &mut Db<'_>, changes: &[Reseal]) -> QueryResult<usize> {
    scrubbed(conn, |conn| {
        let mut changed = 0;
        for change in changes {
            changed += db_run!(conn: {
                diesel::update(
                    k::signing_keys
                        .filter(k::kid.eq(&change.kid))
                        .filter(k::private_key_pkcs8.eq(&change.was)),
                )
                .set(k::private_key_pkcs8.eq(&change.now))
                .execute(conn)
            })?;
        }
        Ok(changed)
    })
}
