//! Whether an endpoint is still on, for tries held since their claim: a try that waited
//! for a slot is let go unmade if its endpoint was turned off or deleted meanwhile.

use coffer_store::StoreError;

use crate::endpoints::store as endpoints;
use crate::state::NotificationsState;

pub(crate) async fn still_on(
    state: &NotificationsState,
    endpoint: &str,
) -> Result<bool, StoreError> {
    let uuids = vec![endpoint.to_owned()];
    let on = state
        .store
        .query(move |db| endpoints::enabled_among(db, &uuids))
        .await?;
    Ok(!on.is_empty())
}
