//! Payments' copy of the organisations and accounts it needs, kept from identity's events.
//! Every event carries the whole object, so applying one is an upsert; the newest event
//! wins, and an older one arriving late (a redelivery) changes nothing.

use coffer_events::{Event, Handler, HandlerError};
use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::{accounts::dsl as a, organisations::dsl as o};

pub struct Replica;

fn text(event: &Event, field: &str) -> Result<String, HandlerError> {
    event.data[field]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| HandlerError::Permanent(format!("{} has no {field}", event.name)))
}

impl Handler for Replica {
    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let uuid = event.object_uuid.to_string();
        let active = event.data["active"].as_bool().unwrap_or(true);
        let at = event.timestamp;
        if newer_known(db, event)? {
            return Ok(());
        }
        match event.object.as_str() {
            "organisation" => {
                let name = text(event, "name")?;
                db_run!(db: {
                    diesel::insert_into(o::organisations)
                        .values((o::uuid.eq(&uuid), o::name.eq(&name), o::active.eq(active), o::updated_ms.eq(at)))
                        .on_conflict(o::uuid)
                        .do_update()
                        .set((o::name.eq(&name), o::active.eq(active), o::updated_ms.eq(at)))
                        .execute(db)
                })?;
            }
            "account" => {
                let name = text(event, "name")?;
                let organisation =
                    event
                        .organisation_uuid
                        .map(|u| u.to_string())
                        .ok_or_else(|| {
                            HandlerError::Permanent("account event without organisation".into())
                        })?;
                let known = account_organisation(db, &uuid)?.is_some();
                db_run!(db: {
                    diesel::insert_into(a::accounts)
                        .values((
                            a::uuid.eq(&uuid),
                            a::organisation_uuid.eq(&organisation),
                            a::name.eq(&name),
                            a::active.eq(active),
                            a::updated_ms.eq(at),
                        ))
                        .on_conflict(a::uuid)
                        .do_update()
                        .set((a::name.eq(&name), a::active.eq(active), a::updated_ms.eq(at)))
                        .execute(db)
                })?;
                if !known {
                    crate::profiles::store::create_test_profiles(
                        db,
                        &uuid,
                        &organisation,
                        at / 1000,
                    )?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Whether the replica already holds a newer state of the event's object.
fn newer_known(db: &mut Db<'_>, event: &Event) -> QueryResult<bool> {
    let uuid = event.object_uuid.to_string();
    let known: Option<i64> = match event.object.as_str() {
        "organisation" => db_run!(db: {
            o::organisations.find(&uuid).select(o::updated_ms).first(db).optional()
        })?,
        "account" => {
            db_run!(db: { a::accounts.find(&uuid).select(a::updated_ms).first(db).optional() })?
        }
        _ => None,
    };
    Ok(known.is_some_and(|at| at > event.timestamp))
}

/// The organisation of an account payments knows of.
pub fn account_organisation(db: &mut Db<'_>, account: &str) -> QueryResult<Option<String>> {
    db_run!(db: { a::accounts.find(account).select(a::organisation_uuid).first(db).optional() })
}

pub fn organisation_exists(db: &mut Db<'_>, uuid: &str) -> QueryResult<bool> {
    db_run!(db: {
        diesel::select(diesel::dsl::exists(o::organisations.filter(o::uuid.eq(uuid)))).get_result(db)
    })
}
