//! What billing keeps of other services, from their events: identity's organisations and
//! accounts (coffer-directory), and payments' payment sources and supporters, enough to
//! check the references of a subscription. Each event carries the whole object; the newest
//! wins, and a redelivered older one changes nothing.

use coffer_events::{Event, Handler, HandlerError};
use coffer_store::{Db, db_run};
use diesel::prelude::*;

pub use coffer_directory::account_organisation;

use crate::error::for_handler;
use crate::schema::{payment_sources::dsl as ps, supporters::dsl as su};
use crate::{invoices, subscriptions};

/// Keeps the copies, and hands a payment that starts a subscription and payments' results
/// of charge attempts to their commands.
pub struct Replica {
    pub outbox: coffer_events::Outbox,
    pub clock: std::sync::Arc<dyn coffer_model::clock::Clock>,
}

fn text(event: &Event, field: &str) -> Result<String, HandlerError> {
    event.data[field]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| HandlerError::Permanent(format!("{} has no {field}", event.name)))
}

/// A payment source as billing needs it.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = crate::schema::payment_sources)]
pub struct KnownSource {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub test_mode: bool,
    pub payment_method: String,
    pub payment_provider: String,
    pub status: String,
}

impl Handler for Replica {
    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let uuid = event.object_uuid.to_string();
        let at = event.timestamp;
        match event.object.as_str() {
            "organisation" | "account" => coffer_directory::apply(db, event).map(drop),
            "payment" => {
                if let Some(start) = subscriptions::events::payment_start(event) {
                    subscriptions::commands::from_payment::start_from_payment(
                        db,
                        &self.outbox,
                        self.clock.unix(),
                        start,
                    )
                    .map_err(for_handler)?;
                }
                if let Some(result) = invoices::events::charge_result(event) {
                    invoices::commands::results::apply_payment_result(
                        db,
                        &self.outbox,
                        self.clock.unix(),
                        &result,
                    )
                    .map_err(for_handler)?;
                }
                Ok(())
            }
            "payment_source" => {
                let known: Option<i64> = db_run!(db: {
                    ps::payment_sources.find(&uuid).select(ps::updated_ms).first(db).optional()
                })?;
                if known.is_some_and(|k| k > at) {
                    return Ok(());
                }
                let row = (
                    ps::uuid.eq(uuid.clone()),
                    ps::organisation_uuid.eq(text(event, "organisation_uuid")?),
                    ps::account_uuid.eq(text(event, "account_uuid")?),
                    ps::test_mode.eq(event.data["test_mode"].as_bool().unwrap_or(false)),
                    ps::payment_method.eq(text(event, "payment_method")?),
                    ps::payment_provider.eq(text(event, "payment_provider")?),
                    ps::status.eq(text(event, "status")?),
                    ps::updated_ms.eq(at),
                );
                db_run!(db: {
                    diesel::insert_into(ps::payment_sources)
                        .values(row.clone())
                        .on_conflict(ps::uuid)
                        .do_update()
                        .set((ps::status.eq(text(event, "status")?), ps::updated_ms.eq(at)))
                        .execute(db)
                })?;
                Ok(())
            }
            "supporter" => {
                let organisation = text(event, "organisation_uuid")?;
                db_run!(db: {
                    diesel::insert_into(su::supporters)
                        .values((su::uuid.eq(&uuid), su::organisation_uuid.eq(&organisation), su::updated_ms.eq(at)))
                        .on_conflict(su::uuid)
                        .do_nothing()
                        .execute(db)
                })?;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

pub fn source(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<KnownSource>> {
    db_run!(db: {
        ps::payment_sources.find(uuid).select(KnownSource::as_select()).first(db).optional()
    })
}

/// The organisation of a supporter billing knows of.
pub fn supporter_organisation(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<String>> {
    db_run!(db: { su::supporters.find(uuid).select(su::organisation_uuid).first(db).optional() })
}
