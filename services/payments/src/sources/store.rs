//! Payment sources' own queries: a pending source ended, its custom parameters changed.
//! The source as recorded is read and written in shared/source_store.rs.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::payment_sources::dsl as s;
use crate::shared::source::SourceStatus;

/// Ends a pending source as `status` (active or failed); false when it was not pending, so
/// an approval racing a decline cannot both win.
pub fn complete(
    db: &mut Db<'_>,
    uuid: &str,
    status: SourceStatus,
    reason: Option<&str>,
    now: i64,
) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(s::payment_sources.find(uuid).filter(s::status.eq(SourceStatus::Pending)))
            .set((
                s::status.eq(status),
                s::status_reason.eq(reason),
                s::action.eq(None::<String>),
                s::updated.eq(now),
            ))
            .execute(db)
    })?;
    Ok(changed == 1)
}

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
