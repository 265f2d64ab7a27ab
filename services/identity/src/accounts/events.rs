//! What accounts emit: the account in its single form, read inside the transaction that
//! changed it, so the event carries exactly what was committed.

use coffer_events::Outbox;
use coffer_events::catalogue::{ACCOUNT_CREATED, ACCOUNT_UPDATED, EventType};
use coffer_events::outbox::OutboxEvent;
use coffer_store::Db;
use diesel::QueryResult;
use diesel::result::Error as DieselError;

use super::store as accounts;
use super::views::AccountDetail;
use crate::writes::{payload, stored_uuid};

pub fn created(tx: &mut Db<'_>, outbox: &Outbox, uuid: &str) -> QueryResult<OutboxEvent> {
    announce(tx, outbox, &ACCOUNT_CREATED, uuid)
}

pub fn updated(tx: &mut Db<'_>, outbox: &Outbox, uuid: &str) -> QueryResult<OutboxEvent> {
    announce(tx, outbox, &ACCOUNT_UPDATED, uuid)
}

fn announce(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    kind: &EventType,
    uuid_text: &str,
) -> QueryResult<OutboxEvent> {
    let (account, org) =
        accounts::find_with_organisation(tx, uuid_text)?.ok_or(DieselError::NotFound)?;
    let id = stored_uuid(&account.uuid)?;
    let organisation = stored_uuid(&org.uuid)?;
    Ok(outbox.event(
        kind,
        id,
        Some(organisation),
        Some(id),
        payload(&AccountDetail::new(&account, &org))?,
    ))
}
