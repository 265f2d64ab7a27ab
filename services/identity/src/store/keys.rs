use coffer_store::{Db, WriteTx, db_run};
use diesel::prelude::*;

use super::rows::KeyRow;
use crate::schema::signing_keys::dsl as k;

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
