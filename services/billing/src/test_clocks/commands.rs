//! What a test clock does: each use case once, for routes and the workers alike. The
//! scheduler's part of an advance (what falls due on the clock, and its pass at each such
//! moment) is the scheduler's: scheduler/commands/on_clock.rs.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_events::TraceContext;
use coffer_events::catalogue::SUBSCRIPTION_CANCELLED;
use coffer_model::ids::parse_uuid;
use coffer_store::Db;
use diesel::QueryResult;
use uuid::Uuid;

use super::domain::{self, ClockStatus, TestClock};
use super::store;
use crate::error::BillingError;
use crate::state::BillingState;
use crate::subscriptions::commands::commit;
use crate::subscriptions::domain::state as subscription_state;
use crate::subscriptions::store as subscriptions;
use coffer_http::idempotency::Once;

/// A new clock at `frozen_time`, for the organisation named or the caller's only one.
pub(crate) async fn create(
    state: &BillingState,
    caller: &Caller,
    once: Once,
    frozen_time: Option<i64>,
    organisation_uuid: Option<String>,
) -> Result<HttpResponse, BillingError> {
    let time = domain::frozen_time(frozen_time).map_err(BillingError::invalid_all)?;
    let named = organisation_uuid
        .map(|raw| {
            parse_uuid("organisation_uuid", &raw).map_err(|e| BillingError::invalid_all(vec![e]))
        })
        .transpose()?;
    let organisation = match (named, caller.organisation_filter()) {
        (Some(org), _) => org,
        (None, Some([only])) => *only,
        _ => {
            return Err(BillingError::invalid_all(vec![
                coffer_model::validation::FieldError::not_null("organisation_uuid"),
            ]));
        }
    };
    caller.require_organisation(organisation)?;
    let clock = TestClock {
        uuid: Uuid::new_v4().to_string(),
        owner: organisation.to_string(),
        frozen_time: time,
        target_time: None,
        status: ClockStatus::Ready,
        created: state.clock.unix(),
    };
    let response = once
        .run(&state.store, state.clock.as_ref(), move |tx| {
            store::insert(tx, &clock)?;
            let body = serde_json::to_value(&clock).map_err(BillingError::internal)?;
            Ok::<_, BillingError>((StatusCode::CREATED, body))
        })
        .await?;
    Ok(response)
}

/// The clock, if the caller's organisation owns it.
pub(crate) async fn load(
    state: &BillingState,
    caller: &Caller,
    uuid: Uuid,
) -> Result<TestClock, BillingError> {
    let id = uuid.to_string();
    let clock = state
        .store
        .query(move |db| store::find(db, &id))
        .await?
        .ok_or(BillingError::not_found("Test clock"))?;
    caller.require_organisation(clock.owner.parse().map_err(BillingError::internal)?)?;
    Ok(clock)
}

/// Begins moving the clock to `target` and hands the moving to a worker.
pub(crate) async fn advance(
    state: &BillingState,
    caller: &Caller,
    uuid: Uuid,
    target: Option<i64>,
) -> Result<TestClock, BillingError> {
    let target = domain::frozen_time(target).map_err(BillingError::invalid_all)?;
    let clock = load(state, caller, uuid).await?;
    domain::check_advance(&clock, target).map_err(|e| BillingError::invalid_all(vec![e]))?;
    let (id, now) = (clock.uuid.clone(), state.clock.unix());
    if !state
        .store
        .query(move |db| store::begin(db, &id, target, now))
        .await?
    {
        return Err(BillingError::conflict(
            "The test clock is advancing already",
        ));
    }
    state.advances.begun(clock.uuid.clone());
    Ok(TestClock {
        status: ClockStatus::Advancing,
        ..clock
    })
}

/// Deletes the clock and cancels what lives on it. An advance under way sees the clock
/// gone before its next step and stops.
pub(crate) async fn delete(
    state: &BillingState,
    caller: &Caller,
    uuid: Uuid,
    trace: TraceContext,
) -> Result<(), BillingError> {
    let clock = load(state, caller, uuid).await?;
    let (outbox, real) = (state.outbox.clone(), state.clock.clone());
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let now = real.unix();
                for mut s in subscriptions::on_clock(tx, &clock.uuid)? {
                    let expected = s.status;
                    if subscription_state::cancel(&mut s, now).is_ok() {
                        commit(
                            tx,
                            &outbox,
                            real.unix(),
                            &s,
                            Some(expected),
                            &SUBSCRIPTION_CANCELLED,
                            &trace,
                        )?;
                    }
                }
                store::delete(tx, &clock.uuid)?;
                Ok::<_, BillingError>(())
            })
        })
        .await?;
    state.outbox.committed();
    Ok(())
}

/// The end of an advance: the clock shows its target and is ready again.
pub(crate) fn finish(db: &mut Db<'_>, clock: &str, target: i64, now: i64) -> QueryResult<()> {
    store::set_time(db, clock, target, now)?;
    store::finish(db, clock, now)
}
