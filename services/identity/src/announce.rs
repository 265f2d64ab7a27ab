//! Identity's events: the current state of an organisation or account, read inside the
//! transaction that changed it, so the event carries exactly what was committed.

use coffer_events::Outbox;
use coffer_events::catalogue::EventType;
use coffer_events::outbox::OutboxEvent;
use coffer_store::Db;
use diesel::QueryResult;
use diesel::result::Error as DieselError;
use uuid::Uuid;

use crate::routes::views::{AccountDetail, OrganisationDetail};
use crate::store::{accounts, organisations};

fn uuid(raw: &str) -> QueryResult<Uuid> {
    raw.parse()
        .map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

fn json<T: serde::Serialize>(value: &T) -> QueryResult<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| DieselError::SerializationError(Box::new(e)))
}

/// `kind` about organisation `uuid`, with the organisation in its single form.
pub fn organisation(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    kind: &EventType,
    uuid_text: &str,
) -> QueryResult<OutboxEvent> {
    let org = organisations::find(tx, uuid_text)?.ok_or(DieselError::NotFound)?;
    let accounts = accounts::of_organisation(tx, uuid_text)?;
    let id = uuid(&org.uuid)?;
    Ok(outbox.event(
        kind,
        id,
        Some(id),
        None,
        json(&OrganisationDetail::new(&org, &accounts))?,
    ))
}

/// `kind` about account `uuid`, with the account in its single form.
pub fn account(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    kind: &EventType,
    uuid_text: &str,
) -> QueryResult<OutboxEvent> {
    let (account, org) =
        accounts::find_with_organisation(tx, uuid_text)?.ok_or(DieselError::NotFound)?;
    let id = uuid(&account.uuid)?;
    let organisation = uuid(&org.uuid)?;
    Ok(outbox.event(
        kind,
        id,
        Some(organisation),
        Some(id),
        json(&AccountDetail::new(&account, &org))?,
    ))
}
