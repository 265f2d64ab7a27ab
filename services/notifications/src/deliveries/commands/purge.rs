//! The retention: tries older than `retention_days` leave the log, and finished tasks with
//! them.

use coffer_store::StoreError;

use crate::deliveries::store::{responses, tasks};
use crate::state::NotificationsState;

/// Rows removed per statement, so a long-neglected log is cut in short transactions.
const CHUNK: i64 = 5_000;

/// Removes what the retention no longer keeps; returns how many rows went.
pub(crate) async fn purge(state: &NotificationsState) -> Result<usize, StoreError> {
    let keep_ms = i64::from(state.retention_days) * 24 * 3600 * 1000;
    let before_ms = state.clock.unix_ms() - keep_ms;
    let mut removed = 0;
    loop {
        let n = state
            .store
            .run(move |db| {
                db.write_tx(|tx| {
                    Ok::<_, StoreError>(
                        responses::purge(tx, before_ms.div_euclid(1000), CHUNK)?
                            + tasks::purge(tx, before_ms, CHUNK)?,
                    )
                })
            })
            .await?;
        removed += n;
        if n == 0 {
            return Ok(removed);
        }
    }
}
