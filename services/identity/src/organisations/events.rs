//! What organisations emit: the organisation in its single form, read inside the
//! transaction that changed it, so the event carries exactly what was committed.

use coffer_events::Outbox;
use coffer_events::catalogue::{EventType, ORGANISATION_CREATED, ORGANISATION_UPDATED};
use coffer_events::outbox::OutboxEvent;
use coffer_store::Db;
use diesel::QueryResult;
use diesel::result::Error as DieselError;

use super::store as organisations;
use super::views::OrganisationDetail;
use crate::directory;
use crate::writes::{payload, stored_uuid};

pub fn created(tx: &mut Db<'_>, outbox: &Outbox, uuid: &str) -> QueryResult<OutboxEvent> {
    announce(tx, outbox, &ORGANISATION_CREATED, uuid)
}

pub fn updated(tx: &mut Db<'_>, outbox: &Outbox, uuid: &str) -> QueryResult<OutboxEvent> {
    announce(tx, outbox, &ORGANISATION_UPDATED, uuid)
}

fn announce(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    kind: &EventType,
    uuid_text: &str,
) -> QueryResult<OutboxEvent> {
    let org = organisations::find(tx, uuid_text)?.ok_or(DieselError::NotFound)?;
    let accounts = directory::accounts_of(tx, uuid_text)?;
    let id = stored_uuid(&org.uuid)?;
    Ok(outbox.event(
        kind,
        id,
        Some(id),
        None,
        payload(&OrganisationDetail::new(&org, &accounts))?,
    ))
}
