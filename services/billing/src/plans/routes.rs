use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::{ApiError, Failure, Json, internal};
use coffer_model::ids::parse_uuid;
use coffer_model::validation::FieldError;
use coffer_store::Db;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use serde::Deserialize;

use super::domain::{self, Changes, GLOBAL_UUID, Plan};
use super::store;
use crate::BillingState;
use crate::replica::account_organisation;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/subscription-plans", web::get().to(list))
        .route("/subscription-plans", web::post().to(create))
        .route("/subscription-plans/{plan_uuid}", web::get().to(get))
        .route("/subscription-plans/{plan_uuid}", web::patch().to(update));
}

fn uuid_of(raw: &str) -> Result<uuid::Uuid, ApiError> {
    raw.parse().map_err(ApiError::internal)
}

/// A second plan of the same name in an organisation is 409, caught by the unique index
/// (two requests racing cannot both pass a check made before writing).
fn name_taken(e: DieselError) -> Failure {
    match e {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => Failure::Api(
            ApiError::conflict("A subscription plan of this name exists in the organisation"),
        ),
        other => Failure::Db(other),
    }
}

/// The plan's account must be one of its organisation's.
fn check_account(tx: &mut Db<'_>, plan: &Plan) -> Result<(), Failure> {
    let Some(account) = &plan.account_uuid else {
        return Ok(());
    };
    match account_organisation(tx, account)? {
        None => Err(Failure::Api(ApiError::not_found("Account"))),
        Some(org) if Some(&org) != plan.organisation_uuid.as_ref() => Err(Failure::Api(
            ApiError::invalid("account_uuid", "is not an account of the organisation"),
        )),
        Some(_) => Ok(()),
    }
}

fn save(tx: &mut Db<'_>, plan: &Plan, now: i64, new: bool) -> Result<(), Failure> {
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

fn apply(plan: &mut Plan, changes: Changes) {
    if let Some(account) = changes.account_uuid {
        plan.account_uuid = account;
    }
    if let Some(name) = changes.name {
        plan.name = name;
    }
    if let Some(is_default) = changes.is_default {
        plan.is_default = is_default;
    }
    if let Some(dunning) = changes.dunning {
        plan.dunning_configuration = dunning;
    }
    if let Some(notifications) = changes.notifications {
        plan.notification_configuration = notifications;
    }
}

#[derive(Debug, Deserialize)]
struct ListQuery {
    organisation_uuid: Option<String>,
}

/// The caller's plans (or one organisation's), after the global default plan. The global
/// plan shows `is_default: false` when the one organisation listed has a default of its own.
async fn list(
    state: web::Data<BillingState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let scope: Option<Vec<String>> = match &query.organisation_uuid {
        Some(raw) => {
            let org =
                parse_uuid("organisation_uuid", raw).map_err(|e| ApiError::validation(vec![e]))?;
            caller.require_organisation(org)?;
            Some(vec![org.to_string()])
        }
        None => caller
            .organisation_filter()
            .map(|ids| ids.iter().map(ToString::to_string).collect()),
    };
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
    Ok(HttpResponse::Ok().json(all))
}

async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let hash = idempotency::request_hash(&req, &body.0);
    let changes = domain::changes(&body.0).map_err(ApiError::validation)?;
    let mut missing = Vec::new();
    if changes.organisation_uuid.is_none() {
        missing.push(FieldError::not_null("organisation_uuid"));
    }
    if changes.name.is_none() {
        missing.push(FieldError::not_blank("name"));
    }
    if !missing.is_empty() {
        return Err(ApiError::validation(missing));
    }
    let organisation = changes.organisation_uuid.clone().unwrap_or_default();
    caller.require_organisation(uuid_of(&organisation)?)?;
    let now = state.clock.unix();
    let mut plan = Plan {
        uuid: uuid::Uuid::new_v4().to_string(),
        organisation_uuid: Some(organisation),
        is_default: false,
        created: now,
        ..domain::global()
    };
    apply(&mut plan, changes);
    idempotency::run(
        &state.store,
        state.clock.as_ref(),
        caller.client_id(),
        key,
        hash,
        move |tx| {
            save(tx, &plan, now, true)?;
            let body = serde_json::to_value(&plan).map_err(internal)?;
            Ok::<_, Failure>((StatusCode::CREATED, body))
        },
    )
    .await
}

/// A plan the caller may see: the global one, or one of its organisations'.
pub(crate) async fn load(
    state: &BillingState,
    caller: &Caller,
    raw: &str,
) -> Result<Plan, ApiError> {
    let id = parse_uuid("plan_uuid", raw)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    if id == GLOBAL_UUID {
        return Ok(domain::global());
    }
    let plan = state
        .store
        .query(move |db| store::find(db, &id))
        .await?
        .ok_or_else(|| ApiError::not_found("Subscription plan"))?;
    caller.require_organisation(uuid_of(
        plan.organisation_uuid.as_deref().unwrap_or_default(),
    )?)?;
    Ok(plan)
}

async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(load(&state, &caller, &path).await?))
}

async fn update(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let changes = domain::changes(&body.0).map_err(ApiError::validation)?;
    let mut plan = load(&state, &caller, &path).await?;
    if plan.uuid == GLOBAL_UUID {
        return Err(ApiError::forbidden());
    }
    if changes
        .organisation_uuid
        .as_ref()
        .is_some_and(|o| Some(o) != plan.organisation_uuid.as_ref())
    {
        return Err(ApiError::invalid("organisation_uuid", "cannot change"));
    }
    apply(&mut plan, changes);
    let now = state.clock.unix();
    let saved = plan.clone();
    state
        .store
        .run(move |db| db.write_tx(|tx| save(tx, &saved, now, false)))
        .await?;
    Ok(HttpResponse::Ok().json(plan))
}
