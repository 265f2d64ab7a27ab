use coffer_store::resealing::scrubbed;
use coffer_store::{Db, WriteTx, db_run};
use diesel::prelude::*;

pub use super::domain::KeyRow;
use super::domain::sealing::Reseal;
use crate::schema::signing_keys::dsl as k;

/// The table's row; the rest of keys/ reads and writes [`KeyRow`].
#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::signing_keys)]
struct Row {
    kid: String,
    private_key_pkcs8: String,
    created: i64,
    retired_at: Option<i64>,
}

impl From<Row> for KeyRow {
    fn from(r: Row) -> Self {
        Self {
            kid: r.kid,
            private_key_pkcs8: r.private_key_pkcs8,
            created: r.created,
            retired_at: r.retired_at,
        }
    }
}

impl From<&KeyRow> for Row {
    fn from(r: &KeyRow) -> Self {
        Self {
            kid: r.kid.clone(),
            private_key_pkcs8: r.private_key_pkcs8.clone(),
            created: r.created,
            retired_at: r.retired_at,
        }
    }
}

pub fn all(conn: &mut Db<'_>) -> QueryResult<Vec<KeyRow>> {
    let rows: Vec<Row> = db_run!(conn: {
        k::signing_keys.select(Row::as_select()).order(k::created.asc()).load(conn)
    })?;
    Ok(rows.into_iter().map(KeyRow::from).collect())
}

/// Adds `row` as the signing key and retires every other one, atomically, so there is
/// always exactly one key that signs.
pub fn rotate_to(conn: &mut Db<'_>, row: &KeyRow) -> QueryResult<()> {
    db_run!(conn: {
        conn.write_tx(|conn| {
            diesel::update(k::signing_keys.filter(k::retired_at.is_null()))
                .set(k::retired_at.eq(row.created))
                .execute(conn)?;
            diesel::insert_into(k::signing_keys).values(Row::from(row)).execute(conn)?;
            Ok(())
        })
    })
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
