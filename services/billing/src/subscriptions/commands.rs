//! What changes a subscription, for routes, test clocks and the scheduler alike.

use coffer_events::{EventType, TraceContext, append};
use coffer_http::{ApiError, Failure, internal};
use coffer_store::Db;
use serde_json::Value;

use super::record::Subscription;
use super::store;
use crate::BillingState;

/// Saves a changed subscription (only if its status is still `expected`), announces it,
/// and gives the response body.
pub(crate) fn commit(
    tx: &mut Db<'_>,
    state: &BillingState,
    s: &Subscription,
    expected: Option<&str>,
    kind: &'static EventType,
    trace: &TraceContext,
) -> Result<Value, Failure> {
    let now = state.clock.unix();
    match expected {
        None => store::insert(tx, s)?,
        Some(status) => {
            if !store::save(tx, s, status, now)? {
                return Err(Failure::Api(ApiError::conflict(
                    "The subscription changed meanwhile; fetch it and try again",
                )));
            }
        }
    }
    let body = store::rendered(tx, s)?;
    let event = state.outbox.event(
        kind,
        s.uuid.parse().map_err(internal)?,
        s.organisation_uuid.parse().ok(),
        s.account_uuid.parse().ok(),
        body.clone(),
    );
    append(tx, &[event], Some(trace))?;
    Ok(body)
}
