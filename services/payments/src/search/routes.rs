//! `POST /search/payments` over HTTP: read, check, run, answer.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, JsonEvenAsForm, route};
use coffer_search::aggs::AggKind;
use coffer_search::{Plan, Source, rendered};
use serde_json::Value;

use super::counts;
use super::rollups::ROLLUPS;
use super::schema::PAYMENTS;
use crate::shared::store;
use crate::state::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, search);
}

/// Payments by a query (`$match`, `$term`, ...), with sorting, paging (`size` up to
/// 10,000) and aggregations (SPEC.md, "Payment search").
#[utoipa::path(post, path = "/search/payments", operation_id = "searchPayments", tag = "Payments",
    request_body(content = coffer_search::SearchRequest, example = json!({"query": {"$match": {"status": "succeeded"}}, "size": 10, "sort": [{"field": "created", "direction": "desc"}]})),
    responses((status = 200, description = "The matching objects, a page of them, and the aggregations", body = coffer_search::Found),
        (status = 429, description = "The organisation runs as many searches as it may at once and as many wait for a turn, or this one waited its whole time budget for a turn; see Retry-After")))]
pub(crate) async fn search(
    state: web::Data<PaymentsState>,
    caller: Caller,
    body: JsonEvenAsForm<Value>,
) -> Result<HttpResponse, ApiError> {
    let found = coffer_search::search(
        &state.store,
        &PAYMENTS,
        body.0,
        caller.organisation_filter(),
        source,
        |db, uuid| rendered(store::find(db, uuid)?),
    )
    .await?;
    Ok(HttpResponse::Ok().json(found))
}

/// Filtering and grouping only on counted columns: add kept counts up (counts.rs); else
/// count rows, or read roll-ups for what of it they answer (rollups.rs).
fn source(plan: &Plan) -> Source<'static> {
    let counted = counts::answerable(&plan.filter)
        && plan
            .aggs
            .iter()
            .all(|a| matches!(a.kind, AggKind::Term { .. }) && counts::counted(&a.field));
    if counted {
        Source {
            from: counts::SOURCE,
            tally: "CAST(COALESCE(SUM(c), 0) AS BIGINT)",
            rollups: None,
        }
    } else {
        Source {
            rollups: Some(&ROLLUPS),
            ..Source::rows(&PAYMENTS)
        }
    }
}
