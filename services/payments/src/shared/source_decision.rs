//! The donor's decision on a payment source that waited for their agreement: it ends active
//! or failed, once, and says so. Payments decide the source a payment keeps with the
//! payment (its approval, its cancelling), and the test provider's page decides a source
//! kept on its own.

use coffer_events::{Outbox, TraceContext, append};
use coffer_store::Db;
use diesel::result::Error as DieselError;

use super::announce::source_announcement;
use super::source::SourceStatus;
use super::source_store as recorded;
use crate::error::PaymentsError;

/// Ends the pending source `uuid` as the donor decided, with the event that says so, in
/// the caller's transaction. Nothing happens when the source was no longer pending, so an
/// approval racing a decline cannot both win.
pub(crate) fn decide_in(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    uuid: &str,
    status: SourceStatus,
    reason: Option<&str>,
    now: i64,
    trace: &TraceContext,
) -> Result<(), PaymentsError> {
    if !recorded::complete(tx, uuid, status, reason, now)? {
        return Ok(());
    }
    let source = recorded::find(tx, uuid)?.ok_or(DieselError::NotFound)?;
    if let Some(event) = source_announcement(outbox, &source)? {
        append(tx, &[event], Some(trace))?;
    }
    Ok(())
}
