//! A service's copy of the partner integrations the onboarding service makes and disables
//! (`onboarding.partner_integration.*`), and the organisations a partner's token reaches
//! from it. Every event carries the whole integration; the newest wins, and an older one
//! arriving late changes nothing. Each service that keeps a copy includes [`MIGRATIONS`].

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use coffer_auth::PartnerOrganisations;
use coffer_events::{Event, HandlerError};
use coffer_store::{Db, Migrations, Store, db_run};
use diesel::prelude::*;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use quick_cache::sync::Cache;
use uuid::Uuid;

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/partners/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/partners/sqlite");

pub const MIGRATIONS: Migrations = Migrations {
    service: "partners",
    includes: &[],
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};

mod schema {
    diesel::table! {
        partner_integrations (uuid) {
            uuid -> Text,
            partner_uuid -> Text,
            organisation_uuid -> Text,
            enabled -> Bool,
            updated_ms -> BigInt,
        }
    }
}

use schema::partner_integrations::dsl as p;

/// The topic the events come on: a consumer keeping a copy subscribes to it.
pub const DOMAIN: &str = "onboarding";

/// Whether `event` is about a partner integration.
pub fn concerns(event: &Event) -> bool {
    event.object == "partner_integration"
}

/// Applies one of onboarding's partner integration events.
pub fn apply(db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
    if !concerns(event) {
        return Ok(());
    }
    let uuid = event.object_uuid.to_string();
    let partner = event.text("partner_uuid")?;
    let organisation = event.text("organisation_uuid")?;
    let enabled = event.data["status"].as_str() == Some("enabled");
    let at = event.timestamp;
    let known: Option<i64> = db_run!(db: {
        p::partner_integrations.find(&uuid).select(p::updated_ms).first(db).optional()
    })?;
    if known.is_some_and(|k| k > at) {
        return Ok(());
    }
    db_run!(db: {
        diesel::insert_into(p::partner_integrations)
            .values((
                p::uuid.eq(&uuid),
                p::partner_uuid.eq(&partner),
                p::organisation_uuid.eq(&organisation),
                p::enabled.eq(enabled),
                p::updated_ms.eq(at),
            ))
            .on_conflict(p::uuid)
            .do_update()
            .set((p::enabled.eq(enabled), p::updated_ms.eq(at)))
            .execute(db)
    })?;
    Ok(())
}

/// The organisations `partner` has an enabled integration with.
pub fn organisations_of(db: &mut Db<'_>, partner: &str) -> QueryResult<Vec<String>> {
    db_run!(db: {
        p::partner_integrations
            .filter(p::partner_uuid.eq(partner).and(p::enabled.eq(true)))
            .select(p::organisation_uuid)
            .distinct()
            .load(db)
    })
}

/// [`PartnerOrganisations`] from a service's copy, each answer kept for `ttl` so a busy
/// partner does not cost a query per request; a disable reaches this service's checks
/// within the events' lag plus `ttl`.
pub struct PartnerDirectory {
    store: Store,
    cache: Cache<Uuid, (std::time::Instant, Vec<Uuid>)>,
    ttl: Duration,
}

impl PartnerDirectory {
    pub fn new(store: Store, ttl: Duration) -> Self {
        Self {
            store,
            cache: Cache::new(10_000),
            ttl,
        }
    }
}

impl PartnerOrganisations for PartnerDirectory {
    fn organisations(
        &self,
        partner: Uuid,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<Uuid>, String>> + Send + '_>> {
        Box::pin(async move {
            if let Some((at, list)) = self.cache.get(&partner)
                && at.elapsed() < self.ttl
            {
                return Ok(list);
            }
            let key = partner.to_string();
            let rows = self
                .store
                .query(move |c| organisations_of(c, &key))
                .await
                .map_err(|e| e.to_string())?;
            let list: Vec<Uuid> = rows.iter().filter_map(|u| u.parse().ok()).collect();
            if !self.ttl.is_zero() {
                self.cache
                    .insert(partner, (std::time::Instant::now(), list.clone()));
            }
            Ok(list)
        })
    }
}

/// The handler of a service's `partners` consumer: keeps the copy.
pub struct Replica;

impl coffer_events::Handler for Replica {
    fn wants(&self, event: &Event) -> bool {
        concerns(event)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        apply(db, event)
    }
}

/// What a service does to keep a copy: consume onboarding's events into it, and answer
/// partners' tokens from it (`configure` registers the answer as app data).
pub fn wire(events: &mut coffer_events::EventWiring) {
    events.consume("partners", &[DOMAIN], std::sync::Arc::new(Replica));
}

/// The app data a service registers so that [`coffer_auth::Caller`] finds a partner's
/// organisations.
pub fn app_data(store: Store) -> actix_web::web::Data<dyn PartnerOrganisations> {
    let directory: std::sync::Arc<dyn PartnerOrganisations> =
        std::sync::Arc::new(PartnerDirectory::new(store, Duration::from_secs(1)));
    actix_web::web::Data::from(directory)
}
