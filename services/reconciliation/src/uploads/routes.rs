//! Upload credentials over HTTP; the standalone store's own upload address is
//! standalone.rs.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, PathUuid, route};

use super::commands;
use crate::state::ReconciliationState;

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, credentials);
}

/// Signed form fields for uploading bank files to the source, valid for five minutes
/// (SPEC.md, "File upload procedure").
#[utoipa::path(get, path = "/reconciliation/sources/{source_uuid}/file-upload-credentials", operation_id = "getReconciliationFileUploadParameters", tag = "Reconciliation",
    params(("source_uuid" = uuid::Uuid, Path, description = "The source (api_upload or bank_transfer)")),
    responses((status = 200, description = "The upload credentials: `inputs` to copy into the form, `attributes` of the form, `expires_at`", body = Object),
        (status = 400, description = "An sftp source, which takes no uploads"),
        (status = 404, description = "No such source")))]
pub(crate) async fn credentials(
    state: web::Data<ReconciliationState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let uuid = uuid.to_string();
    Ok(HttpResponse::Ok().json(commands::credentials(&state, &caller, uuid).await?))
}
