use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, PathUuid, route};
use coffer_model::ids::parse_uuid;
use coffer_model::paging::{PagingLimits, PagingQuery};
use serde::Deserialize;

use super::commands;
use crate::state::PaymentsState;

const LIMITS: PagingLimits = PagingLimits::new(100, 500);

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, list);
    route!(t, get);
}

/// A parameter it does not know (a misspelt `acount_uuid`) is 400 naming it, rather than a
/// filter silently left out (serde's `flatten` would let it through).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListQuery {
    account_uuid: Option<String>,
    from: Option<String>,
    size: Option<String>,
}

/// Payouts of an account, or of all the caller's accounts, newest first, in their list
/// form (without their payments).
#[utoipa::path(get, path = "/payouts", operation_id = "listPayouts", tag = "Payouts",
    params(("account_uuid" = Option<uuid::Uuid>, Query, description = "Only this account's; all of the caller's accounts' when absent"),
        ("from" = Option<i64>, Query, minimum = 0, maximum = 4294967295_i64, description = "Payouts to skip"),
        ("size" = Option<i64>, Query, minimum = 0, maximum = 500, description = "At most this many (100 by default)")),
    responses((status = 200, description = "The payouts", body = [super::record::Payout]),
        (status = 404, description = "No such account")))]
pub(crate) async fn list(
    state: web::Data<PaymentsState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let mut errors = Vec::new();
    let paging = PagingQuery {
        from: query.from,
        size: query.size,
    }
    .resolve(LIMITS)
    .map_err(|e| errors.extend(e));
    let account = query
        .account_uuid
        .as_deref()
        .map(|raw| parse_uuid("account_uuid", raw))
        .transpose()
        .map_err(|e| errors.push(e));
    let (Ok(paging), Ok(account)) = (paging, account) else {
        return Err(ApiError::validation(errors));
    };
    let payouts = commands::list(&state.store, &caller, account, paging).await?;
    Ok(HttpResponse::Ok().json(payouts))
}

/// One payout, with the payments it paid out and the refunds it took back.
#[utoipa::path(get, path = "/payouts/{payout_uuid}", operation_id = "getPayout", tag = "Payouts",
    params(("payout_uuid" = uuid::Uuid, Path, description = "The payout")),
    responses((status = 200, description = "The payout", body = super::record::Payout),
        (status = 404, description = "No such payout")))]
pub(crate) async fn get(
    state: web::Data<PaymentsState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let payout = commands::get(&state.store, &caller, uuid.into_inner()).await?;
    Ok(HttpResponse::Ok().json(payout))
}
