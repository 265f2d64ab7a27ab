use std::collections::BTreeMap;

use coffer_store::{Db, WriteTx, db_run};
use diesel::prelude::*;

use crate::schema::metadata::dsl as m;

pub fn get(conn: &mut Db<'_>, owner: &str) -> QueryResult<BTreeMap<String, String>> {
    db_run!(conn: {
        let pairs: Vec<(String, String)> =
            m::metadata.filter(m::owner_uuid.eq(owner)).select((m::key, m::value)).load(conn)?;
        Ok(pairs.into_iter().collect())
    })
}

/// Sets the given keys, leaving others as they are.
pub fn upsert(
    conn: &mut Db<'_>,
    owner: &str,
    entries: &BTreeMap<String, String>,
) -> QueryResult<()> {
    db_run!(conn: {
        conn.write_tx(|conn| {
            for (key, value) in entries {
                diesel::insert_into(m::metadata)
                    .values((m::owner_uuid.eq(owner), m::key.eq(key), m::value.eq(value)))
                    .on_conflict((m::owner_uuid, m::key))
                    .do_update()
                    .set(m::value.eq(value))
                    .execute(conn)?;
            }
            Ok(())
        })
    })
}
