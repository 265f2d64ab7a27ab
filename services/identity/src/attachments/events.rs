//! Attachments emit nothing of their own: a changed address or metadata is announced as
//! its owner's `updated` event, since the owner's single form is what consumers keep.

use coffer_events::Outbox;
use coffer_events::outbox::OutboxEvent;
use coffer_store::Db;
use diesel::QueryResult;

use super::domain::Owner;
use crate::accounts::events as accounts;
use crate::organisations::events as organisations;

pub fn owner_updated(tx: &mut Db<'_>, outbox: &Outbox, owner: &Owner) -> QueryResult<OutboxEvent> {
    match owner {
        Owner::Organisation(u) => organisations::updated(tx, outbox, u),
        Owner::Account(u) => accounts::updated(tx, outbox, u),
    }
}
