//! What changes the agreements payments answers: a subscription billing announced.

use coffer_store::Db;
use diesel::QueryResult;

use super::domain::KeptSubscription;
use super::store;

/// Keeps the subscription as billing announced it at `at` (ms), unless a newer
/// announcement is kept already: a redelivered older event changes nothing.
pub fn keep_subscription(db: &mut Db<'_>, kept: &KeptSubscription, at: i64) -> QueryResult<()> {
    if store::newer_kept(db, &kept.uuid, at)? {
        return Ok(());
    }
    store::keep(db, kept, at)
}
