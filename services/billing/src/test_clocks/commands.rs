//! What a test clock does: each use case once, for routes and the start-up resume alike.

use std::sync::Arc;

use coffer_auth::Caller;
use coffer_events::TraceContext;
use coffer_events::catalogue::SUBSCRIPTION_CANCELLED;
use coffer_http::{ApiError, Failure};
use coffer_model::timestamp::LAST_INSTANT;
use coffer_model::validation::FieldError;
use coffer_store::Db;
use diesel::QueryResult;
use uuid::Uuid;

use super::advance;
use super::store::{self, TestClock};
use crate::BillingState;
use crate::subscriptions::commands::commit;
use crate::subscriptions::{state as subscription_state, store as subscriptions};

/// The longest one advance may go: three years of 366 days. Each charge date on the way
/// is a step that waits for payments' answers, so a span is work, and it is bounded.
pub const MAX_ADVANCE: i64 = 3 * 366 * 86_400;

/// A clock's time: Unix seconds from the epoch to the end of 2199, the dates a request may
/// name (coffer_model::timestamp).
pub fn frozen_time(raw: Option<i64>) -> Result<i64, ApiError> {
    raw.filter(|t| (0..=LAST_INSTANT).contains(t))
        .ok_or_else(|| {
            ApiError::validation(vec![FieldError::not_valid(
                "frozen_time",
                format!("must be a time in Unix seconds from 0 to {LAST_INSTANT} (2199-12-31)"),
            )])
        })
}

/// A new clock for the organisation named, or the caller's only one.
pub fn draft(
    caller: &Caller,
    named: Option<Uuid>,
    time: i64,
    now: i64,
) -> Result<TestClock, ApiError> {
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
    Ok(TestClock {
        uuid: Uuid::new_v4().to_string(),
        owner: organisation.to_string(),
        frozen_time: time,
        target_time: None,
        status: "ready".into(),
        created: now,
    })
}

pub fn create(tx: &mut Db<'_>, clock: &TestClock) -> QueryResult<()> {
    store::insert(tx, clock)
}

/// The clock, if the caller's organisation owns it.
pub(crate) async fn load(
    state: &BillingState,
    caller: &Caller,
    uuid: &str,
) -> Result<TestClock, ApiError> {
    let id = uuid.to_owned();
    let clock = state
        .store
        .query(move |db| store::find(db, &id))
        .await?
        .ok_or_else(|| ApiError::not_found("Test clock"))?;
    caller.require_organisation(clock.owner.parse().map_err(ApiError::internal)?)?;
    Ok(clock)
}

/// Begins moving the clock to `target` and leaves the moving to a background task.
pub(crate) async fn advance(
    state: &BillingState,
    caller: &Caller,
    uuid: &str,
    target: i64,
) -> Result<TestClock, ApiError> {
    let clock = load(state, caller, uuid).await?;
    if target <= clock.frozen_time {
        return Err(ApiError::invalid(
            "frozen_time",
            "must be later than the clock's time",
        ));
    }
    if target - clock.frozen_time > MAX_ADVANCE {
        return Err(ApiError::invalid(
            "frozen_time",
            format!("may be at most {MAX_ADVANCE} seconds (three years) past the clock's time"),
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
    Ok(TestClock {
        status: "advancing".into(),
        ..clock
    })
}

/// Deletes the clock and cancels what lives on it. An advance under way sees the clock
/// gone before its next step and stops.
pub(crate) async fn delete(
    state: Arc<BillingState>,
    caller: &Caller,
    uuid: &str,
    trace: &TraceContext,
) -> Result<(), ApiError> {
    let clock = load(&state, caller, uuid).await?;
    let (st, trace) = (Arc::clone(&state), trace.clone());
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let now = st.clock.unix();
                for mut s in subscriptions::on_clock(tx, &clock.uuid)? {
                    let expected = s.status.clone();
                    if subscription_state::cancel(&mut s, now).is_ok() {
                        commit(
                            tx,
                            &st,
                            &s,
                            Some(&expected),
                            &SUBSCRIPTION_CANCELLED,
                            &trace,
                        )?;
                    }
                }
                store::delete(tx, &clock.uuid)?;
                Ok::<_, Failure>(())
            })
        })
        .await?;
    state.outbox.committed();
    Ok(())
}
