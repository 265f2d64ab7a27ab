use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_events::catalogue::{
    SUBSCRIPTION_ACTIVATED, SUBSCRIPTION_CANCELLED, SUBSCRIPTION_CREATED, SUBSCRIPTION_SUSPENDED,
    SUBSCRIPTION_UPDATED,
};
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::{ApiError, Failure, Json, OptionalJson, RequestTrace, Shape};
use coffer_model::ids::parse_uuid;
use coffer_model::over_maximum;
use coffer_model::validation::FieldError;
use coffer_store::Db;
use serde::Deserialize;
use serde_json::{Value, json};

use super::commands::commit;
use coffer_search::Source;

use super::record::Subscription;
use super::request::{self, Fields};
use super::search::SUBSCRIPTIONS;
use super::state::{self, Refusal};
use super::store;
use crate::BillingState;
use crate::plans::domain::GLOBAL_UUID;
use crate::plans::store as plans;
use crate::replica::{self, account_organisation};
use crate::schedule::local_date;
use crate::test_clocks::store as test_clocks;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    // Shape A, as SPEC.md shows for Update Subscription; the state changes answer in
    // shape C, as it shows for them.
    cfg.service(
        web::resource("/subscriptions")
            .app_data(Shape::A)
            .route(web::post().to(create)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}")
            .app_data(Shape::A)
            .route(web::get().to(get))
            .route(web::patch().to(update)),
    );
    cfg.route("/search/subscriptions", web::post().to(search));
    for action in ["activate", "cancel", "suspend"] {
        cfg.service(
            web::resource(format!("/subscriptions/{{subscription_uuid}}/{action}"))
                .app_data(Shape::C)
                .route(web::post().to(change)),
        );
    }
}

fn refused(r: Refusal) -> Failure {
    Failure::Api(match r {
        Refusal::Invalid(errors) => ApiError::validation(errors),
        Refusal::Conflict(message) => ApiError::conflict(message),
    })
}

/// Checks the references a create or update names against what billing knows, and applies
/// them: the payment source (active, the organisation's, of the same mode), the supporter
/// (the organisation's; set once) and the plan (the organisation's or the global one).
fn apply_references(
    tx: &mut Db<'_>,
    s: &mut Subscription,
    f: &Fields,
    creating: bool,
) -> Result<(), Failure> {
    if let Some(uuid) = &f.payment_source_uuid {
        let source = replica::source(tx, uuid)?
            .filter(|src| src.organisation_uuid == s.organisation_uuid)
            .ok_or_else(|| ApiError::not_found("Payment source"))?;
        if source.status != "active" {
            return Err(Failure::Api(ApiError::invalid(
                "payment_source_uuid",
                format!("the payment source is {}, not active", source.status),
            )));
        }
        if source.test_mode != s.test_mode {
            return Err(Failure::Api(ApiError::invalid(
                "test_mode",
                "must match the payment source's test_mode",
            )));
        }
        s.payment_source_uuid = source.uuid;
        s.payment_provider = source.payment_provider;
        s.payment_method = source.payment_method;
    }
    if let Some(Some(uuid)) = &f.supporter_uuid {
        if !creating && s.supporter_uuid.as_ref().is_some_and(|known| known != uuid) {
            return Err(Failure::Api(ApiError::conflict(
                "supporter_uuid can only be set while the subscription has none",
            )));
        }
        if replica::supporter_organisation(tx, uuid)?.as_deref()
            != Some(s.organisation_uuid.as_str())
        {
            return Err(Failure::Api(ApiError::not_found("Supporter")));
        }
        s.supporter_uuid = Some(uuid.clone());
    }
    match &f.plan_uuid {
        Some(uuid) if uuid == GLOBAL_UUID => s.plan_uuid = uuid.clone(),
        Some(uuid) => {
            let plan = plans::find(tx, uuid)?
                .filter(|p| p.organisation_uuid.as_deref() == Some(s.organisation_uuid.as_str()))
                .ok_or_else(|| ApiError::not_found("Subscription plan"))?;
            s.plan_uuid = plan.uuid;
        }
        None if creating => {
            s.plan_uuid = plans::default_for(tx, &s.organisation_uuid, &s.account_uuid)?
                .map_or_else(|| GLOBAL_UUID.to_owned(), |p| p.uuid);
        }
        None => {}
    }
    Ok(())
}

/// The terms a create or update sets (references aside).
fn apply_terms(s: &mut Subscription, f: Fields) {
    if let Some(amount) = f.amount {
        s.amount = amount;
    }
    if let Some((shown, zone)) = f.timezone {
        s.timezone = shown;
        s.zone = zone;
    }
    if let Some((text, interval)) = f.recurring_interval {
        s.recurring_interval = text;
        s.interval = interval;
    }
    if let Some(from) = f.planned_effective_from {
        s.planned_effective_from = from;
        if let Some(date) = from {
            s.anchor_date = date;
        }
    }
    if let Some(end) = f.planned_end {
        s.planned_end = end;
    }
    if let Some(custom) = f.custom_parameters {
        s.custom_parameters = custom;
    }
    if let Some(service) = f.service_parameters {
        s.service_parameters = service;
    }
}

async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    trace: RequestTrace,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let hash = idempotency::request_hash(&req, &body.0);
    let fields = request::read(&body.0).map_err(ApiError::validation)?;
    request::require_for_create(&fields).map_err(ApiError::validation)?;
    let account = fields.account_uuid.clone().unwrap_or_default();
    await_references(&state, &account, &fields).await?;
    let lookup = account.clone();
    let organisation = state
        .store
        .query(move |db| account_organisation(db, &lookup))
        .await?
        .ok_or_else(|| ApiError::not_found("Account"))?;
    caller.require_account(
        account.parse().map_err(ApiError::internal)?,
        organisation.parse().map_err(ApiError::internal)?,
    )?;
    // A subscription on a test clock lives in the clock's time from its creation on.
    let now = match &fields.test_clock_uuid {
        None => state.clock.unix(),
        Some(uuid) => {
            if fields.test_mode != Some(true) {
                return Err(ApiError::invalid(
                    "test_clock_uuid",
                    "only a test-mode subscription can live on a test clock",
                ));
            }
            let id = uuid.clone();
            state
                .store
                .query(move |db| test_clocks::find(db, &id))
                .await?
                .filter(|c| c.owner == organisation)
                .ok_or_else(|| ApiError::not_found("Test clock"))?
                .frozen_time
        }
    };
    let (timezone, zone) = fields
        .timezone
        .clone()
        .unwrap_or_else(|| ("UTC".to_owned(), coffer_model::zone::UTC));
    let today = local_date(zone, now);
    // Present: require_for_create checked them.
    let (Some(currency), Some((interval_text, interval))) =
        (fields.currency, fields.recurring_interval.clone())
    else {
        return Err(ApiError::internal(
            "currency and recurring_interval were checked",
        ));
    };
    let draft = Subscription {
        uuid: uuid::Uuid::new_v4().to_string(),
        organisation_uuid: organisation,
        account_uuid: account,
        supporter_uuid: None,
        plan_uuid: GLOBAL_UUID.to_owned(),
        payment_source_uuid: String::new(),
        payment_provider: String::new(),
        payment_method: String::new(),
        test_mode: fields.test_mode.unwrap_or(false),
        currency,
        amount: 0,
        timezone,
        zone,
        recurring_interval: interval_text,
        interval,
        anchor_date: today,
        status: "pending".into(),
        next_due_date: None,
        planned_effective_from: None,
        planned_since: None,
        planned_end: None,
        ended_at: None,
        suspension_start: None,
        suspension_end: None,
        consecutive_failed_invoices: 0,
        custom_parameters: serde_json::Map::new(),
        service_parameters: json!({}),
        created: now,
        test_clock_uuid: fields.test_clock_uuid.clone(),
    };
    let activate = fields.status.as_deref() == Some("active");
    let st = state.clone();
    let response = idempotency::run(
        &state.store,
        state.clock.as_ref(),
        caller.client_id(),
        key,
        hash,
        move |tx| {
            let mut s = draft.clone();
            apply_references(tx, &mut s, &fields, true)?;
            apply_terms(&mut s, fields.clone());
            if activate {
                state::activate(&mut s, today, now).map_err(refused)?;
            }
            let body = commit(tx, &st, &s, None, &SUBSCRIPTION_CREATED, &trace.0)?;
            Ok::<_, Failure>((StatusCode::CREATED, body))
        },
    )
    .await?;
    state.outbox.committed();
    Ok(response)
}

/// How long a request waits for billing to hear of an account, payment source or supporter
/// it names: they are made in other services and reach billing by their events, which can
/// trail a client that creates a source and then at once a subscription by a moment.
const REFERENCE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

async fn await_references(state: &BillingState, account: &str, f: &Fields) -> Result<(), ApiError> {
    let (account, source) = (account.to_owned(), f.payment_source_uuid.clone());
    let supporter = f.supporter_uuid.clone().flatten();
    let started = std::time::Instant::now();
    loop {
        let (a, so, su) = (account.clone(), source.clone(), supporter.clone());
        let known = state
            .store
            .query(move |db| {
                Ok(account_organisation(db, &a)?.is_some()
                    && match &so {
                        Some(uuid) => replica::source(db, uuid)?.is_some(),
                        None => true,
                    }
                    && match &su {
                        Some(uuid) => replica::supporter_organisation(db, uuid)?.is_some(),
                        None => true,
                    })
            })
            .await?;
        if known || started.elapsed() >= REFERENCE_WAIT {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The time of a subscription: its test clock's, or the real one.
async fn time_of(state: &BillingState, clock: Option<&str>) -> Result<i64, ApiError> {
    let (clock, real) = (clock.map(str::to_owned), state.clock.unix());
    Ok(state
        .store
        .query(move |db| test_clocks::time_of(db, clock.as_deref(), real))
        .await?)
}

/// A subscription the caller may touch.
pub(crate) async fn load(
    state: &BillingState,
    caller: &Caller,
    raw: &str,
) -> Result<Subscription, ApiError> {
    let id = parse_uuid("subscription_uuid", raw)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    let s = state
        .store
        .query(move |db| store::find(db, &id))
        .await?
        .ok_or_else(|| ApiError::not_found("Subscription"))?;
    caller.require_account(
        s.account_uuid.parse().map_err(ApiError::internal)?,
        s.organisation_uuid.parse().map_err(ApiError::internal)?,
    )?;
    Ok(s)
}

async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let s = load(&state, &caller, &path).await?;
    let body = state.store.query(move |db| store::rendered(db, &s)).await?;
    Ok(HttpResponse::Ok().json(body))
}

async fn update(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    trace: RequestTrace,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    request::refuse_fixed_for_update(&body.0).map_err(ApiError::validation)?;
    let fields = request::read(&body.0).map_err(ApiError::validation)?;
    let current = load(&state, &caller, &path).await?;
    if matches!(current.status.as_str(), "cancelled" | "ended") {
        return Err(ApiError::conflict(format!(
            "{} {} subscription cannot be updated",
            state::article(&current.status),
            current.status
        )));
    }
    await_references(&state, &current.account_uuid, &fields).await?;
    let now = time_of(&state, current.test_clock_uuid.as_deref()).await?;
    let st = state.clone();
    let body = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                // Changes go onto the row as it is now, locked (see `change`).
                let mut s = store::find_locked(tx, &current.uuid)?
                    .ok_or_else(|| Failure::Api(ApiError::not_found("Subscription")))?;
                if matches!(s.status.as_str(), "cancelled" | "ended") {
                    return Err(Failure::Api(ApiError::conflict(format!(
                        "{} {} subscription cannot be updated",
                        state::article(&s.status),
                        s.status
                    ))));
                }
                let expected = s.status.clone();
                apply_references(tx, &mut s, &fields, false)?;
                let reschedule = fields.recurring_interval.is_some()
                    || fields.timezone.is_some()
                    || fields.planned_effective_from.is_some();
                apply_terms(&mut s, fields);
                if s.amount > s.currency.max_minor_units() {
                    return Err(Failure::Api(ApiError::validation(vec![over_maximum(
                        "amount", s.currency,
                    )])));
                }
                if let (Some(from), Some(end)) = (s.planned_effective_from, s.planned_end)
                    && end < from
                {
                    return Err(Failure::Api(ApiError::validation(vec![
                        FieldError::not_valid(
                            "planned_end",
                            "must not be before planned_effective_from",
                        ),
                    ])));
                }
                if reschedule && s.status == "active" {
                    let today = local_date(s.zone, now);
                    state::schedule_from(&mut s, today);
                }
                commit(
                    tx,
                    &st,
                    &s,
                    Some(&expected),
                    &SUBSCRIPTION_UPDATED,
                    &trace.0,
                )
            })
        })
        .await?;
    state.outbox.committed();
    Ok(HttpResponse::Ok().json(body))
}

#[derive(Debug, Default, Deserialize)]
struct SuspendBody {
    suspension_start: Option<String>,
    suspension_end: Option<String>,
}

/// Activate, cancel or suspend: one conditional write of the new state, announced.
async fn change(
    state: web::Data<BillingState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    trace: RequestTrace,
    body: OptionalJson<SuspendBody>,
) -> Result<HttpResponse, ApiError> {
    let action = req.path().rsplit('/').next().unwrap_or_default().to_owned();
    let loaded = load(&state, &caller, &path).await?;
    let now = time_of(&state, loaded.test_clock_uuid.as_deref()).await?;
    let today = local_date(loaded.zone, now);
    let (mut start, mut end) = (None, None);
    if action == "suspend" {
        let b = body.0;
        let mut errors = Vec::new();
        let mut date = |property: &str, raw: Option<String>| {
            raw.and_then(|r| request::date(property, &r).map_err(|e| errors.push(e)).ok())
        };
        start = date("suspension_start", b.suspension_start);
        end = date("suspension_end", b.suspension_end);
        if !errors.is_empty() {
            return Err(ApiError::validation(errors));
        }
    }
    let st = state.clone();
    let body = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                // The transition is judged on the row as it is now, locked, so that a
                // charge result or a scheduler pass in between is neither lost nor undone.
                let mut s = store::find_locked(tx, &loaded.uuid)?
                    .ok_or_else(|| Failure::Api(ApiError::not_found("Subscription")))?;
                let expected = s.status.clone();
                let kind = match action.as_str() {
                    "activate" => {
                        state::activate(&mut s, today, now).map(|()| &SUBSCRIPTION_ACTIVATED)
                    }
                    "cancel" => state::cancel(&mut s, now).map(|()| &SUBSCRIPTION_CANCELLED),
                    _ => {
                        state::suspend(&mut s, start, end, today).map(|()| &SUBSCRIPTION_SUSPENDED)
                    }
                }
                .map_err(|e| Failure::Api(ApiError::from(refused(e))))?;
                commit(tx, &st, &s, Some(&expected), kind, &trace.0)
            })
        })
        .await?;
    state.outbox.committed();
    Ok(HttpResponse::Ok().json(body))
}

/// `POST /search/subscriptions`: the payment search's language over subscriptions.
async fn search(
    state: web::Data<BillingState>,
    caller: Caller,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let found = coffer_search::search(
        &state.store,
        &SUBSCRIPTIONS,
        body.0,
        caller.organisation_filter(),
        |_| Source::rows(&SUBSCRIPTIONS),
        |db, uuid| match store::find(db, uuid)? {
            Some(s) => store::rendered(db, &s).map(Some),
            None => Ok(None),
        },
    )
    .await?;
    Ok(HttpResponse::Ok().json(found))
}
