//! The payouts copy's one use case: keeping a payout payments announced, in the
//! consumer's transaction (events.rs), so its inbox row and the payout commit together.

use coffer_store::Db;
use diesel::QueryResult;

use super::store::{self, Row};

/// Keeps the payout; a redelivered event changes nothing.
pub fn keep_payout(db: &mut Db<'_>, payout: &Row) -> QueryResult<()> {
    store::keep(db, payout)
}
