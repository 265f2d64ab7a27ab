//! The donor's decision on a source that waited for their agreement: it ends active or
//! failed, once, and says so.

use coffer_events::{TraceContext, append};
use coffer_store::Db;
use diesel::result::Error as DieselError;

use crate::command_kit::Parts;
use crate::error::PaymentsError;
use crate::shared::announce::source_announcement;
use crate::shared::source::{Source, SourceStatus};
use crate::shared::source_store as recorded;
use crate::sources::store;
use crate::state::PaymentsState;

/// Ends the pending source `uuid` as the donor decided, with the event that says so.
pub(crate) async fn decide(
    state: &Parts,
    uuid: String,
    status: SourceStatus,
    reason: Option<&'static str>,
) -> Result<Source, PaymentsError> {
    let now = state.clock.unix();
    let (st, id) = (state.clone(), uuid.clone());
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                // The donor's browser carries no trace; the decision starts one.
                let trace = TraceContext::new_root();
                decide_in(tx, &st, &id, status, reason, now, &trace)
            })
        })
        .await?;
    state.outbox.committed();
    state
        .store
        .query(move |db| recorded::find(db, &uuid))
        .await?
        .ok_or(PaymentsError::NotFound("Payment source"))
}

/// [`decide`] in a transaction of the caller's (the decision on a payment decides the
/// source it keeps). Nothing happens when the source was no longer pending, so an approval
/// racing a decline cannot both win.
pub(crate) fn decide_in(
    tx: &mut Db<'_>,
    state: &PaymentsState,
    uuid: &str,
    status: SourceStatus,
    reason: Option<&str>,
    now: i64,
    trace: &TraceContext,
) -> Result<(), PaymentsError> {
    if !store::complete(tx, uuid, status, reason, now)? {
        return Ok(());
    }
    let source = recorded::find(tx, uuid)?.ok_or(DieselError::NotFound)?;
    if let Some(event) = source_announcement(&state.outbox, &source)? {
        append(tx, &[event], Some(trace))?;
    }
    Ok(())
}
