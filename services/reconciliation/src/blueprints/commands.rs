//! Blueprints' use cases.

use crate::error::ReconciliationError;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_http::idempotency::Once;
use coffer_model::paging::Paging;
use coffer_store::Db;

use super::domain::BlueprintInput;
use super::store::{self, Blueprint};
use crate::lists::visible_page;
use crate::state::ReconciliationState;
use crate::tenancy::{find_visible, require_account};

pub async fn create(
    state: &ReconciliationState,
    caller: &Caller,
    once: Once,
    input: BlueprintInput,
) -> Result<HttpResponse, ReconciliationError> {
    require_account(
        &state.store,
        caller,
        input.organisation_uuid,
        input.account_uuid,
    )
    .await?;
    let now = state.clock.unix();
    let blueprint = Blueprint::new(input, now);
    let body = serde_json::to_value(&blueprint).map_err(ReconciliationError::internal)?;
    let effect = move |tx: &mut Db<'_>| {
        store::insert(tx, &blueprint)?;
        Ok::<_, ReconciliationError>((StatusCode::CREATED, body.clone()))
    };
    Ok(once.run(&state.store, state.clock.as_ref(), effect).await?)
}

/// The blueprint, once the caller may see its account.
pub async fn get(
    state: &ReconciliationState,
    caller: &Caller,
    uuid: String,
) -> Result<Blueprint, ReconciliationError> {
    find_visible(&state.store, caller, "Blueprint", uuid, store::find).await
}

pub async fn list(
    state: &ReconciliationState,
    caller: &Caller,
    account: Option<uuid::Uuid>,
    paging: Paging,
) -> Result<Vec<Blueprint>, ReconciliationError> {
    visible_page(&state.store, caller, account, paging, store::list).await
}
