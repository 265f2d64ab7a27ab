use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, route};
use coffer_model::ids::parse_uuid;
use serde::Deserialize;

use crate::shared::profile_store;
use crate::state::PaymentsState;
use coffer_directory::account_organisation;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, list);
}

#[derive(Debug, Deserialize)]
pub(crate) struct Query {
    account_uuid: Option<String>,
}

/// The payment method profiles of the caller's accounts.
#[utoipa::path(get, path = "/payment-method-profiles", operation_id = "listPaymentMethodProfiles", tag = "Payment method profiles",
    params(("account_uuid" = Option<uuid::Uuid>, Query, description = "Only this account's")),
    responses((status = 200, description = "The profiles", body = [crate::shared::profile::Profile]),
        (status = 404, description = "No such account")))]
pub(crate) async fn list(
    state: web::Data<PaymentsState>,
    caller: Caller,
    query: web::Query<Query>,
) -> Result<HttpResponse, ApiError> {
    let account = match query.into_inner().account_uuid {
        Some(raw) => {
            let account =
                parse_uuid("account_uuid", &raw).map_err(|e| ApiError::validation(vec![e]))?;
            let key = account.to_string();
            let organisation = state
                .store
                .query(move |db| account_organisation(db, &key))
                .await?
                .ok_or_else(|| ApiError::not_found("Account"))?;
            caller.require_account(account, organisation.parse().map_err(ApiError::internal)?)?;
            Some(account.to_string())
        }
        None => None,
    };
    let visible: Option<Vec<String>> = caller
        .organisation_filter()
        .map(|ids| ids.iter().map(ToString::to_string).collect());
    let rows = state
        .store
        .query(move |db| profile_store::list(db, account.as_deref(), visible.as_deref()))
        .await?;
    Ok(HttpResponse::Ok().json(rows))
}
