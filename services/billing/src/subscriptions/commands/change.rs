//! Update, activate, cancel and suspend: each judged on the row as it is now, locked, so
//! that a charge result or a scheduler pass in between is neither lost nor undone.

use chrono::NaiveDate;
use coffer_auth::Caller;
use coffer_events::catalogue::{
    SUBSCRIPTION_ACTIVATED, SUBSCRIPTION_CANCELLED, SUBSCRIPTION_SUSPENDED, SUBSCRIPTION_UPDATED,
};
use coffer_events::{EventType, TraceContext};
use coffer_store::Db;
use serde_json::Value;
use uuid::Uuid;

use super::references::{apply_references, await_references};
use super::{commit, load, time_of};
use crate::error::BillingError;
use crate::schedule::local_date;
use crate::state::BillingState;
use crate::subscriptions::domain::terms::{apply_terms, check_terms, reschedules};
use crate::subscriptions::domain::{Refusal, Subscription, SubscriptionStatus, request, state};
use crate::subscriptions::store;

fn not_updatable(s: &Subscription) -> Option<BillingError> {
    s.status.is_over().then(|| {
        BillingError::conflict(format!(
            "{} {} subscription cannot be updated",
            state::article(s.status.as_str()),
            s.status
        ))
    })
}

pub(crate) async fn update(
    st: &BillingState,
    caller: &Caller,
    uuid: Uuid,
    body: &Value,
    trace: TraceContext,
) -> Result<Value, BillingError> {
    request::refuse_fixed_for_update(body).map_err(BillingError::invalid_all)?;
    let fields = request::read(body).map_err(BillingError::invalid_all)?;
    let current = load(st, caller, uuid).await?;
    if let Some(refused) = not_updatable(&current) {
        return Err(refused);
    }
    await_references(st, &current.account_uuid, &fields).await?;
    let now = time_of(st, current.test_clock_uuid.as_deref()).await?;
    let (outbox, clock) = (st.outbox.clone(), st.clock.clone());
    let body = st
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let mut s = locked(tx, &current.uuid)?;
                if let Some(refused) = not_updatable(&s) {
                    return Err(refused);
                }
                let expected = s.status;
                apply_references(tx, &mut s, &fields, false)?;
                let reschedule = reschedules(&fields);
                apply_terms(&mut s, fields);
                check_terms(&s).map_err(BillingError::invalid_all)?;
                if reschedule && s.status == SubscriptionStatus::Active {
                    let today = local_date(s.zone, now);
                    state::schedule_from(&mut s, today);
                }
                commit(
                    tx,
                    &outbox,
                    clock.unix(),
                    &s,
                    Some(expected),
                    &SUBSCRIPTION_UPDATED,
                    &trace,
                )
            })
        })
        .await?;
    st.outbox.committed();
    Ok(body)
}

fn locked(tx: &mut Db<'_>, uuid: &str) -> Result<Subscription, BillingError> {
    store::find_locked(tx, uuid)?.ok_or(BillingError::not_found("Subscription"))
}

/// What a state change does to a subscription, given its local today and its time.
type Transition = Box<dyn Fn(&mut Subscription, NaiveDate, i64) -> Result<(), Refusal> + Send>;

/// One conditional write of the new state, announced. The change is read from the
/// request only once the subscription is known to be the caller's.
async fn transition(
    st: &BillingState,
    caller: &Caller,
    uuid: Uuid,
    kind: &'static EventType,
    change: impl FnOnce() -> Result<Transition, BillingError>,
    trace: TraceContext,
) -> Result<Value, BillingError> {
    let loaded = load(st, caller, uuid).await?;
    let change = change()?;
    let now = time_of(st, loaded.test_clock_uuid.as_deref()).await?;
    let today = local_date(loaded.zone, now);
    let (outbox, clock) = (st.outbox.clone(), st.clock.clone());
    let body = st
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let mut s = locked(tx, &loaded.uuid)?;
                let expected = s.status;
                change(&mut s, today, now)?;
                commit(tx, &outbox, clock.unix(), &s, Some(expected), kind, &trace)
            })
        })
        .await?;
    st.outbox.committed();
    Ok(body)
}

pub(crate) async fn activate(
    st: &BillingState,
    caller: &Caller,
    uuid: Uuid,
    trace: TraceContext,
) -> Result<Value, BillingError> {
    let change = || Ok(Box::new(state::activate) as Transition);
    transition(st, caller, uuid, &SUBSCRIPTION_ACTIVATED, change, trace).await
}

pub(crate) async fn cancel(
    st: &BillingState,
    caller: &Caller,
    uuid: Uuid,
    trace: TraceContext,
) -> Result<Value, BillingError> {
    let change =
        || Ok(Box::new(|s: &mut Subscription, _, now| state::cancel(s, now)) as Transition);
    transition(st, caller, uuid, &SUBSCRIPTION_CANCELLED, change, trace).await
}

/// Suspends from `start` (today when none) until `end` (open when none), both
/// `YYYY-MM-DD` in the subscription's zone.
pub(crate) async fn suspend(
    st: &BillingState,
    caller: &Caller,
    uuid: Uuid,
    (start, end): (Option<String>, Option<String>),
    trace: TraceContext,
) -> Result<Value, BillingError> {
    let change = move || {
        let mut errors = Vec::new();
        let mut date = |property: &str, raw: Option<String>| {
            raw.and_then(|r| request::date(property, &r).map_err(|e| errors.push(e)).ok())
        };
        let (start, end) = (date("suspension_start", start), date("suspension_end", end));
        if !errors.is_empty() {
            return Err(BillingError::invalid_all(errors));
        }
        Ok(
            Box::new(move |s: &mut Subscription, today, _| state::suspend(s, start, end, today))
                as Transition,
        )
    };
    transition(st, caller, uuid, &SUBSCRIPTION_SUSPENDED, change, trace).await
}
