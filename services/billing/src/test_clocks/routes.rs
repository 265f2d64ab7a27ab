use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::{ApiError, Json};
use coffer_model::ids::parse_uuid;
use coffer_model::validation::FieldError;
use serde_json::{Value, json};

use super::advance;
use super::store::{self, TestClock};
use crate::BillingState;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/test-clocks", web::post().to(create))
        .route("/test-clocks/{test_clock_uuid}", web::get().to(get))
        .route(
            "/test-clocks/{test_clock_uuid}/advance",
            web::post().to(advance_to),
        );
}

fn frozen_time(body: &Value) -> Result<i64, ApiError> {
    body.get("frozen_time")
        .and_then(Value::as_i64)
        .filter(|t| *t >= 0)
        .ok_or_else(|| {
            ApiError::validation(vec![FieldError::not_valid(
                "frozen_time",
                "must be a time in Unix seconds",
            )])
        })
}

/// The organisation a clock belongs to: the one named, or the caller's only one.
fn owner(caller: &Caller, body: &Value) -> Result<String, ApiError> {
    let named = match body.get("organisation_uuid").and_then(Value::as_str) {
        Some(raw) => {
            Some(parse_uuid("organisation_uuid", raw).map_err(|e| ApiError::validation(vec![e]))?)
        }
        None => None,
    };
    let organisation = match (named, caller.organisation_filter()) {
        (Some(org), _) => org,
        (None, Some([only])) => *only,
        _ => {
            return Err(ApiError::validation(vec![FieldError::not_null(
                "organisation_uuid",
            )]));
        }
    };
    caller.require_organisation(organisation)?;
    Ok(organisation.to_string())
}

async fn create(
    state: web::Data<BillingState>,
    caller: Caller,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let time = frozen_time(&body.0)?;
    let clock = TestClock {
        uuid: uuid::Uuid::new_v4().to_string(),
        owner: owner(&caller, &body.0)?,
        frozen_time: time,
        target_time: None,
        status: "ready".into(),
        created: state.clock.unix(),
    };
    let stored = clock.clone();
    state
        .store
        .query(move |db| store::insert(db, &stored))
        .await?;
    Ok(HttpResponse::Created().json(clock))
}

pub(crate) async fn load(
    state: &BillingState,
    caller: &Caller,
    raw: &str,
) -> Result<TestClock, ApiError> {
    let id = parse_uuid("test_clock_uuid", raw)
        .map_err(|e| ApiError::validation(vec![e]))?
        .to_string();
    let clock = state
        .store
        .query(move |db| store::find(db, &id))
        .await?
        .ok_or_else(|| ApiError::not_found("Test clock"))?;
    caller.require_organisation(clock.owner.parse().map_err(ApiError::internal)?)?;
    Ok(clock)
}

async fn get(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(load(&state, &caller, &path).await?))
}

/// Starts moving the clock to `frozen_time` and answers at once with status `advancing`;
/// GET shows `ready` at the new time when everything due on the way has happened.
async fn advance_to(
    state: web::Data<BillingState>,
    caller: Caller,
    path: web::Path<String>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let target = frozen_time(&body.0)?;
    let clock = load(&state, &caller, &path).await?;
    if target <= clock.frozen_time {
        return Err(ApiError::invalid(
            "frozen_time",
            "must be later than the clock's time",
        ));
    }
    let (id, now) = (clock.uuid.clone(), state.clock.unix());
    if !state
        .store
        .query(move |db| store::begin(db, &id, target, now))
        .await?
    {
        return Err(ApiError::conflict("The test clock is advancing already"));
    }
    let run = advance::run(
        state.store.clone(),
        state.outbox.clone(),
        state.clock.clone(),
        clock.uuid.clone(),
    );
    tokio::spawn(async move {
        // Left advancing, it is finished when billing next starts.
        if let Err(e) = run.await {
            tracing::warn!(error = %e, "advancing a test clock failed");
        }
    });
    Ok(HttpResponse::Ok().json(json!({
        "uuid": clock.uuid,
        "frozen_time": clock.frozen_time,
        "status": "advancing",
        "created": clock.created,
    })))
}
