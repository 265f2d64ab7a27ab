//! `POST /search/payment-agreements` over HTTP: read, check, run, answer.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, JsonEvenAsForm, route};
use coffer_search::{Source, rendered};
use serde_json::Value;

use super::search::AGREEMENTS;
use super::store;
use crate::state::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, search);
}

/// Payment agreements (RaiseNow's pledges): a recurring one per subscription, a one-off
/// one per payment source no subscription uses; the same query language, paging and
/// aggregations as Search Payments. Subscriptions show here once their events have reached
/// payments (docs/decisions/payment-agreements.md).
#[utoipa::path(post, path = "/search/payment-agreements", operation_id = "searchPaymentAgreements", tag = "Payments",
    request_body(content = coffer_search::SearchRequest, example = json!({"query": {"$match": {"type": "recurring"}}, "size": 50, "from": 0, "sort": [{"field": "created", "direction": "desc"}]})),
    responses((status = 200, description = "The matching agreements, a page of them, and the aggregations", body = coffer_search::Found),
        (status = 429, description = "The organisation runs as many searches as it may at once and as many wait for a turn, or this one waited its whole time budget for a turn; see Retry-After")))]
pub(crate) async fn search(
    state: web::Data<PaymentsState>,
    caller: Caller,
    body: JsonEvenAsForm<Value>,
) -> Result<HttpResponse, ApiError> {
    let found = coffer_search::search(
        &state.store,
        &AGREEMENTS,
        body.0,
        caller.organisation_filter(),
        |_| Source::rows(&AGREEMENTS),
        |db, uuid| rendered(store::find(db, uuid)?),
    )
    .await?;
    Ok(HttpResponse::Ok().json(found))
}
