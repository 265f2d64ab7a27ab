//! Reading reports.

use crate::error::ReconciliationError;
use coffer_auth::Caller;
use coffer_model::paging::Paging;

use super::record::Report;
use super::store;
use crate::lists::visible_page;
use crate::state::ReconciliationState;
use crate::tenancy::find_visible;

/// The report with its items, once the caller may see its account.
pub async fn get(
    state: &ReconciliationState,
    caller: &Caller,
    uuid: String,
) -> Result<Report, ReconciliationError> {
    let row = find_visible(&state.store, caller, "Report", uuid, store::find).await?;
    Report::from_row(row, true).map_err(ReconciliationError::internal)
}

pub async fn list(
    state: &ReconciliationState,
    caller: &Caller,
    account: Option<uuid::Uuid>,
    paging: Paging,
) -> Result<Vec<Report>, ReconciliationError> {
    let rows = visible_page(&state.store, caller, account, paging, store::list).await?;
    rows.into_iter()
        .map(|row| Report::from_row(row, false).map_err(ReconciliationError::internal))
        .collect()
}
