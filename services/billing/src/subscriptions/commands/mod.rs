//! What changes or shows a subscription: one use case per function, each owning its
//! transaction; the only way in for routes, invoices, test clocks and payments' events.

mod change;
mod create;
mod references;

use coffer_auth::Caller;
use coffer_events::{EventType, Outbox, TraceContext};
use coffer_search::Source;
use coffer_store::Db;
use serde_json::Value;
use uuid::Uuid;

pub(crate) use change::{activate, cancel, suspend, update};
pub(crate) use create::create;

use super::domain::{Refusal, Subscription, SubscriptionStatus};
use super::events::announce_change;
use super::search::SUBSCRIPTIONS;
use super::store;
use crate::error::BillingError;
use crate::state::BillingState;
use crate::test_clocks::store as test_clocks;

// Here, where a refused transition becomes the command's error, rather than in error.rs:
// the service's error is a low room that knows no feature.
impl From<Refusal> for BillingError {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::Invalid(errors) => BillingError::invalid_all(errors),
            Refusal::Conflict(message) => BillingError::conflict(message),
        }
    }
}

/// A subscription the caller may touch.
pub(crate) async fn load(
    state: &BillingState,
    caller: &Caller,
    uuid: Uuid,
) -> Result<Subscription, BillingError> {
    let id = uuid.to_string();
    let s = state
        .store
        .query(move |db| store::find(db, &id))
        .await?
        .ok_or(BillingError::not_found("Subscription"))?;
    caller.require_account(
        s.account_uuid.parse().map_err(BillingError::internal)?,
        s.organisation_uuid
            .parse()
            .map_err(BillingError::internal)?,
    )?;
    Ok(s)
}

/// The subscription as answered.
pub(crate) async fn show(
    state: &BillingState,
    caller: &Caller,
    uuid: Uuid,
) -> Result<Value, BillingError> {
    let s = load(state, caller, uuid).await?;
    Ok(state.store.query(move |db| store::rendered(db, &s)).await?)
}

/// The payment search's language over the subscriptions the caller may see.
pub(crate) async fn search(
    state: &BillingState,
    caller: &Caller,
    body: Value,
) -> Result<Value, BillingError> {
    Ok(coffer_search::search(
        &state.store,
        &SUBSCRIPTIONS,
        body,
        caller.organisation_filter(),
        |_| Source::rows(&SUBSCRIPTIONS),
        |db, uuid| match store::find(db, uuid)? {
            Some(s) => store::rendered(db, &s).map(Some),
            None => Ok(None),
        },
    )
    .await?)
}

/// The time of a subscription: its test clock's, or the real one.
pub(crate) async fn time_of(
    state: &BillingState,
    clock: Option<&str>,
) -> Result<i64, BillingError> {
    let (clock, real) = (clock.map(str::to_owned), state.clock.unix());
    Ok(state
        .store
        .query(move |db| test_clocks::time_of(db, clock.as_deref(), real))
        .await?)
}

/// Saves a changed subscription (only if its status is still `expected`), announces it,
/// and gives the response body: the last step of every change, in the caller's
/// transaction.
pub(crate) fn commit(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    now: i64,
    s: &Subscription,
    expected: Option<SubscriptionStatus>,
    kind: &'static EventType,
    trace: &TraceContext,
) -> Result<Value, BillingError> {
    match expected {
        None => store::insert(tx, s)?,
        Some(status) => {
            if !store::save(tx, s, status, now)? {
                return Err(BillingError::ChangedMeanwhile(
                    "The subscription changed meanwhile; fetch it and try again",
                ));
            }
        }
    }
    let body = store::rendered(tx, s)?;
    announce_change(tx, outbox, kind, s, body.clone(), Some(trace))?;
    Ok(body)
}
