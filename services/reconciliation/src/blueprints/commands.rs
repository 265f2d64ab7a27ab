//! Blueprints' use cases.

use coffer_auth::Caller;
use coffer_http::{ApiError, Failure};
use coffer_model::paging::Paging;

use super::domain::BlueprintInput;
use super::store::{self, Blueprint};
use crate::ReconciliationState;
use crate::lists::visible_page;
use crate::tenancy::{find_visible, require_account};

pub async fn create(
    state: &ReconciliationState,
    caller: &Caller,
    input: BlueprintInput,
) -> Result<Blueprint, ApiError> {
    require_account(
        &state.store,
        caller,
        input.organisation_uuid,
        input.account_uuid,
    )
    .await?;
    let now = state.clock.unix();
    let blueprint = Blueprint {
        uuid: uuid::Uuid::new_v4().to_string(),
        organisation_uuid: input.organisation_uuid.to_string(),
        account_uuid: input.account_uuid.to_string(),
        name: input.name,
        message_type: input.message_type,
        processing: input.processing,
        versions: input.versions,
        ibans: input.ibans,
        created: now,
        updated: now,
    };
    let row = blueprint.clone();
    state
        .store
        .write(move |tx| store::insert(tx, &row).map_err(Failure::from))
        .await
        .map_err(ApiError::from)?;
    Ok(blueprint)
}

/// The blueprint, once the caller may see its account.
pub async fn get(
    state: &ReconciliationState,
    caller: &Caller,
    uuid: String,
) -> Result<Blueprint, ApiError> {
    find_visible(&state.store, caller, "Blueprint", uuid, store::find).await
}

pub async fn list(
    state: &ReconciliationState,
    caller: &Caller,
    account: Option<uuid::Uuid>,
    paging: Paging,
) -> Result<Vec<Blueprint>, ApiError> {
    visible_page(&state.store, caller, account, paging, store::list).await
}
