use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, PathUuid, route};

use super::commands;
use crate::state::PaymentsState;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, list);
}

/// A payment's disputes (chargebacks its provider reported), oldest first; beyond SPEC.md.
#[utoipa::path(get, path = "/payments/{payment_uuid}/disputes", operation_id = "listPaymentDisputes", tag = "Payments",
    params(("payment_uuid" = uuid::Uuid, Path, description = "The payment")),
    responses((status = 200, description = "The payment's disputes", body = [super::domain::Dispute]),
        (status = 404, description = "No such payment")))]
pub(crate) async fn list(
    state: web::Data<PaymentsState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let disputes = commands::of_payment(&state, &caller, uuid.to_string()).await?;
    Ok(HttpResponse::Ok().json(disputes))
}
