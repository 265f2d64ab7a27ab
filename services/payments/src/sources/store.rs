//! Payment sources' own query: a source's custom parameters changed. The source as
//! recorded is read, written and ended in shared/source_store.rs.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::payment_sources::dsl as s;

pub fn set_custom_parameters(
    db: &mut Db<'_>,
    uuid: &str,
    parameters: &serde_json::Value,
    now: i64,
) -> QueryResult<bool> {
    let text = parameters.to_string();
    let changed = db_run!(db: {
        diesel::update(s::payment_sources.find(uuid))
            .set((s::custom_parameters.eq(&text), s::updated.eq(now)))
            .execute(db)
    })?;
    Ok(changed == 1)
}
