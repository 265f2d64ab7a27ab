//! What makes, changes or shows a subscription plan: one use case per function.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_model::ids::parse_uuid;
use coffer_model::validation::FieldError;
use coffer_store::Db;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde_json::Value;
use uuid::Uuid;

use super::domain::{self, GLOBAL_UUID, Plan};
use super::store;
use crate::error::BillingError;
use crate::replica::account_organisation;
use crate::state::BillingState;
use coffer_http::idempotency::Once;

fn uuid_of(raw: &str) -> Result<Uuid, BillingError> {
    raw.parse().map_err(BillingError::internal)
}

/// A second plan of the same name in an organisation is 409, caught by the unique index
/// (two requests racing cannot both pass a check made before writing).
fn name_taken(e: DieselError) -> BillingError {
    match e {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
            BillingError::conflict("A subscription plan of this name exists in the organisation")
        }
        other => BillingError::from(other),
    }
}

/// The plan's account must be one of its organisation's.
fn check_account(tx: &mut Db<'_>, plan: &Plan) -> Result<(), BillingError> {
    let Some(account) = &plan.account_uuid else {
        return Ok(());
    };
    match account_organisation(tx, account)? {
        None => Err(BillingError::not_found("Account")),
        Some(org) if Some(&org) != plan.organisation_uuid.as_ref() => Err(BillingError::invalid(
            "account_uuid",
            "is not an account of the organisation",
        )),
        Some(_) => Ok(()),
    }
}

fn save(tx: &mut Db<'_>, plan: &Plan, now: i64, new: bool) -> Result<(), BillingError> {
    check_account(tx, plan)?;
    if new {
        store::insert(tx, plan).map_err(name_taken)?;
    } else {
        store::update(tx, plan, now).map_err(name_taken)?;
    }
    if plan.is_default {
        store::clear_other_defaults(tx, plan)?;
    }
    Ok(())
}

/// The caller's plans (or one organisation's), after the global default plan. The global
/// plan shows `is_default: false` when the one organisation listed has a default of its own.
pub(crate) async fn list(
    state: &BillingState,
    caller: &Caller,
    organisation: Option<&str>,
) -> Result<Vec<Plan>, BillingError> {
    let asked = organisation
        .map(|raw| parse_uuid("organisation_uuid", raw))
        .transpose()
        .map_err(|e| BillingError::invalid_all(vec![e]))?;
    let scope = caller.organisations_listed(asked)?;
    let one_organisation = scope.as_ref().is_some_and(|s| s.len() == 1);
    let plans = state
        .store
        .query(move |db| store::list(db, scope.as_deref()))
        .await?;
    let mut global = domain::global();
    if one_organisation {
        global.is_default = !plans
            .iter()
            .any(|p| p.is_default && p.account_uuid.is_none());
    }
    let mut all = vec![global];
    all.extend(plans);
    Ok(all)
}

pub(crate) async fn create(
    state: &BillingState,
    caller: &Caller,
    once: Once,
    body: &Value,
) -> Result<HttpResponse, BillingError> {
    let changes = domain::changes(body).map_err(BillingError::invalid_all)?;
    let mut missing = Vec::new();
    if changes.organisation_uuid.is_none() {
        missing.push(FieldError::not_null("organisation_uuid"));
    }
    if changes.name.is_none() {
        missing.push(FieldError::not_blank("name"));
    }
    if !missing.is_empty() {
        return Err(BillingError::invalid_all(missing));
    }
    let organisation = changes.organisation_uuid.clone().unwrap_or_default();
    caller.require_organisation(uuid_of(&organisation)?)?;
    let now = state.clock.unix();
    let mut plan = Plan {
        uuid: Uuid::new_v4().to_string(),
        organisation_uuid: Some(organisation),
        is_default: false,
        created: now,
        ..domain::global()
    };
    domain::apply(&mut plan, changes);
    let response = once
        .run(&state.store, state.clock.as_ref(), move |tx| {
            save(tx, &plan, now, true)?;
            let body = serde_json::to_value(&plan).map_err(BillingError::internal)?;
            Ok::<_, BillingError>((StatusCode::CREATED, body))
        })
        .await?;
    Ok(response)
}

/// A plan the caller may see: the global one, or one of its organisations'.
pub(crate) async fn load(
    state: &BillingState,
    caller: &Caller,
    uuid: Uuid,
) -> Result<Plan, BillingError> {
    let id = uuid.to_string();
    if id == GLOBAL_UUID {
        return Ok(domain::global());
    }
    let plan = state
        .store
        .query(move |db| store::find(db, &id))
        .await?
        .ok_or(BillingError::not_found("Subscription plan"))?;
    caller.require_organisation(uuid_of(
        plan.organisation_uuid.as_deref().unwrap_or_default(),
    )?)?;
    Ok(plan)
}

pub(crate) async fn update(
    state: &BillingState,
    caller: &Caller,
    uuid: Uuid,
    body: &Value,
) -> Result<Plan, BillingError> {
    let mut changes = domain::changes(body).map_err(BillingError::invalid_all)?;
    // SPEC.md: on update, `is_default` left out is false, so an update that does not say
    // the plan stays the default makes it no longer one.
    changes.is_default.get_or_insert(false);
    let mut plan = load(state, caller, uuid).await?;
    if plan.uuid == GLOBAL_UUID {
        return Err(BillingError::forbidden());
    }
    if changes
        .organisation_uuid
        .as_ref()
        .is_some_and(|o| Some(o) != plan.organisation_uuid.as_ref())
    {
        return Err(BillingError::invalid("organisation_uuid", "cannot change"));
    }
    domain::apply(&mut plan, changes);
    let now = state.clock.unix();
    let saved = plan.clone();
    state
        .store
        .run(move |db| db.write_tx(|tx| save(tx, &saved, now, false)))
        .await?;
    Ok(plan)
}
