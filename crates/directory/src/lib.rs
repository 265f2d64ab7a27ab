//! A service's copy of the organisations and accounts it needs, kept from identity's
//! events (`organisation.*`, `account.*`). Every event carries the whole object, so
//! applying one is an upsert; the newest event wins, and an older one arriving late (a
//! redelivery) changes nothing. Each service that keeps a copy includes [`MIGRATIONS`] in
//! its own, the one place the two tables' DDL lives.

use coffer_events::{Event, HandlerError};
use coffer_store::{Db, Migrations, db_run};
use diesel::prelude::*;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/directory/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/directory/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "directory",
    includes: &[],
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};

mod schema {
    diesel::table! {
        organisations (uuid) {
            uuid -> Text,
            name -> Text,
            active -> Bool,
            updated_ms -> BigInt,
        }
    }

    diesel::table! {
        accounts (uuid) {
            uuid -> Text,
            organisation_uuid -> Text,
            name -> Text,
            active -> Bool,
            updated_ms -> BigInt,
        }
    }
}

use schema::{accounts::dsl as a, organisations::dsl as o};

/// An account the copy did not hold before the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAccount {
    pub uuid: String,
    pub organisation_uuid: String,
    /// When identity made the change, in Unix milliseconds.
    pub at_ms: i64,
}

/// Whether `event` is about something the copy holds (an organisation or an account).
pub fn concerns(event: &Event) -> bool {
    matches!(event.object.as_str(), "organisation" | "account")
}

/// Applies one of identity's events; says which account is new, if one is.
pub fn apply(db: &mut Db<'_>, event: &Event) -> Result<Option<NewAccount>, HandlerError> {
    let uuid = event.object_uuid.to_string();
    let active = event.data["active"].as_bool().unwrap_or(true);
    let at = event.timestamp;
    if newer_known(db, event)? {
        return Ok(None);
    }
    match event.object.as_str() {
        "organisation" => {
            let name = event.text("name")?;
            db_run!(db: {
                diesel::insert_into(o::organisations)
                    .values((o::uuid.eq(&uuid), o::name.eq(&name), o::active.eq(active), o::updated_ms.eq(at)))
                    .on_conflict(o::uuid)
                    .do_update()
                    .set((o::name.eq(&name), o::active.eq(active), o::updated_ms.eq(at)))
                    .execute(db)
            })?;
            Ok(None)
        }
        "account" => {
            let name = event.text("name")?;
            let organisation = event
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
            Ok((!known).then_some(NewAccount {
                uuid,
                organisation_uuid: organisation,
                at_ms: at,
            }))
        }
        _ => Ok(None),
    }
}

/// Whether the copy already holds a newer state of the event's object.
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

/// The organisation of an account the copy holds.
pub fn account_organisation(db: &mut Db<'_>, account: &str) -> QueryResult<Option<String>> {
    db_run!(db: { a::accounts.find(account).select(a::organisation_uuid).first(db).optional() })
}

pub fn organisation_exists(db: &mut Db<'_>, uuid: &str) -> QueryResult<bool> {
    db_run!(db: {
        diesel::select(diesel::dsl::exists(o::organisations.filter(o::uuid.eq(uuid)))).get_result(db)
    })
}

/// The handler of a service's copy: applies identity's organisation and account events.
/// A service that does more with them (payments gives a new account its profiles) has its
/// own handler calling [`apply`].
pub struct Replica;

impl coffer_events::Handler for Replica {
    fn wants(&self, event: &Event) -> bool {
        concerns(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        apply(db, event).map(drop)
    }
}
