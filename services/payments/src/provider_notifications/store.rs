//! The notifications applied, by connector account and event id (migration
//! 000017_provider_notifications): a delivery of one seen before is answered, not applied.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::provider_notifications::dsl as n;

/// Whether the connector account's event `id` was applied before.
pub fn seen(db: &mut Db<'_>, connector_account: &str, id: &str) -> QueryResult<bool> {
    let found: Option<i64> = db_run!(db: {
        n::provider_notifications
            .filter(n::connector_account_uuid.eq(connector_account))
            .filter(n::event_id.eq(id))
            .select(n::received)
            .first(db)
            .optional()
    })?;
    Ok(found.is_some())
}

/// Records the event as applied; false when another delivery of it got there first.
pub fn remember(
    db: &mut Db<'_>,
    connector_account: &str,
    id: &str,
    kind: &str,
    now: i64,
) -> QueryResult<bool> {
    let inserted = db_run!(db: {
        diesel::insert_into(n::provider_notifications)
            .values((
                n::connector_account_uuid.eq(connector_account),
                n::event_id.eq(id),
                n::event_type.eq(kind),
                n::received.eq(now),
            ))
            .on_conflict_do_nothing()
            .execute(db)
    })?;
    Ok(inserted == 1)
}

/// Forgets the events received before `before`: past the providers' retry window, a
/// delivery of one cannot come again. Run often (workers), so each pass deletes little.
pub fn forget(db: &mut Db<'_>, before: i64) -> QueryResult<usize> {
    db_run!(db: {
        diesel::delete(n::provider_notifications.filter(n::received.lt(before))).execute(db)
    })
}
