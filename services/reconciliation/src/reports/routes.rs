use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, PathUuid, route};

use super::commands;
use crate::lists::ListQuery;
use crate::state::ReconciliationState;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, list);
    route!(t, get);
}

/// The reports of the caller's accounts, newest first, without their items.
#[utoipa::path(get, path = "/reconciliation/reports", operation_id = "listReconciliationReports", tag = "Reconciliation",
    params(ListQuery),
    responses((status = 200, description = "The reports", body = [super::record::Report]),
        (status = 404, description = "No such account")))]
pub(crate) async fn list(
    state: web::Data<ReconciliationState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let (account, paging) = query.into_inner().resolve()?;
    Ok(HttpResponse::Ok().json(commands::list(&state, &caller, account, paging).await?))
}

/// One report, with its matched, created and unmatched items.
#[utoipa::path(get, path = "/reconciliation/reports/{report_uuid}", operation_id = "getReconciliationReport", tag = "Reconciliation",
    params(("report_uuid" = uuid::Uuid, Path, description = "The report")),
    responses((status = 200, description = "The report", body = super::record::Report),
        (status = 404, description = "No such report")))]
pub(crate) async fn get(
    state: web::Data<ReconciliationState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let uuid = uuid.to_string();
    Ok(HttpResponse::Ok().json(commands::get(&state, &caller, uuid).await?))
}
