use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::multipart::{MultipartReader, ReadError};
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, PathUuid, route};
use serde_json::json;

use super::commands::{self, Execution};
use super::domain::shown_name;
use super::turns::Turns;
use crate::blueprints::commands as blueprints;
use crate::state::ReconciliationState;

/// Above this a file sent to the deprecated execute operation is refused (SPEC.md,
/// Limits); uploads through a source take up to `reconciliation.max_file_bytes`.
pub const EXECUTE_LIMIT: usize = 10 * 1024 * 1024;
/// Files one execute call may carry: each is read in turn while the caller waits.
pub const EXECUTE_MAX_FILES: usize = 10;
/// When the operation was deprecated (RFC 9745's `Deprecation: @<unix seconds>`).
const DEPRECATED_AT: &str = "@1795651200";

pub(crate) fn routes(t: &mut RouteTable) {
    route!(t, execute);
}

/// Deprecated: reads bank files sent in the request with the blueprint. Upload through a
/// source instead (`GET /reconciliation/sources/{source_uuid}/file-upload-credentials`);
/// this operation takes at most 10 MB. One file answers its report, several an array of
/// reports in their order.
#[utoipa::path(post, path = "/reconciliation/blueprints/{blueprint_uuid}/execute", operation_id = "executeReconciliationBlueprint", tag = "Reconciliation",
    params(("blueprint_uuid" = uuid::Uuid, Path, description = "The blueprint"),
        ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and files within 24 h answer as the first request did; the same key with other files is 409")),
    request_body(content_type = "multipart/form-data", content = Object, description = "Field `filename`, one or more files (10 MB in all at most)",
        example = json!({"filename": ["<the bytes of camt053.xml>"]})),
    responses((status = 201, description = "The report (an array of reports for several files)", body = crate::reports::record::Report,
            headers(("Deprecation" = String, description = "The operation is deprecated (RFC 9745)"))),
        (status = 404, description = "No such blueprint"),
        (status = 409, description = "The Idempotency-Key was used with other files, or its first request is still reading them"),
        (status = 413, description = "The files are larger than 10 MB")))]
#[allow(deprecated)]
pub(crate) async fn execute(
    state: web::Data<ReconciliationState>,
    turns: web::Data<Turns>,
    caller: Result<Caller, ApiError>,
    key: Result<IdempotencyKey, ApiError>,
    blueprint: Result<PathUuid, ApiError>,
    req: HttpRequest,
    payload: web::Payload,
) -> HttpResponse {
    // Every answer says the operation is deprecated, refusals too: the caller and key are
    // extracted here rather than before the handler, so a 401 carries the header as well.
    let mut response = match answer((&state, &turns), (caller, key, blueprint), &req, payload).await
    {
        Ok(response) => response,
        Err(e) => actix_web::ResponseError::error_response(&e),
    };
    response.headers_mut().insert(
        HeaderName::from_static("deprecation"),
        HeaderValue::from_static(DEPRECATED_AT),
    );
    response
}

async fn answer(
    (state, turns): (&ReconciliationState, &Turns),
    (caller, key, blueprint): (
        Result<Caller, ApiError>,
        Result<IdempotencyKey, ApiError>,
        Result<PathUuid, ApiError>,
    ),
    req: &HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let caller = caller?;
    let key = key?;
    let blueprint = blueprints::get(state, &caller, blueprint?.to_string()).await?;
    let declared = req
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > EXECUTE_LIMIT + 64 * 1024) {
        return Err(too_large());
    }
    let files = read_files(req.headers(), payload).await?;
    // The same request again is the same files under the same names: their digests stand
    // for them.
    let sent: Vec<_> = files
        .iter()
        .map(|(name, bytes)| json!({"name": name, "sha256": coffer_secrets::sha256_hex(bytes)}))
        .collect();
    let execution = Execution {
        client_id: caller.client_id().to_owned(),
        key,
        hash: idempotency::request_hash(req, &json!(sent)),
        files,
    };
    Ok(commands::execute(state, turns, blueprint, execution).await?)
}

fn too_large() -> ApiError {
    ApiError::payload_too_large(format!(
        "The files are larger than {EXECUTE_LIMIT} bytes (10 MB), the most this deprecated operation takes; upload them through a source's file-upload-credentials instead"
    ))
}

/// The `filename` parts (`filename[]` too), each with its file name, read up to the limit
/// across all of them; other parts are read past and left out.
async fn read_files(
    headers: &actix_web::http::header::HeaderMap,
    payload: web::Payload,
) -> Result<Vec<(String, Vec<u8>)>, ApiError> {
    // The client is told in words of its own what to send instead.
    let unreadable = |e: ReadError| match e {
        ReadError::TooLarge => too_large(),
        ReadError::NotMultipart => ApiError::bad_request(
            "The request body must be sent as multipart/form-data with a boundary",
        ),
        ReadError::Malformed | ReadError::Stalled => ApiError::bad_request(
            "The request body is not readable multipart/form-data: it ends early or a part is malformed",
        ),
    };
    let mut parts = MultipartReader::new(headers, payload);
    let mut files = Vec::new();
    // Every part counts, those left out too.
    let mut left = EXECUTE_LIMIT;
    while let Some(part) = parts.next_part().await {
        let mut part = part.map_err(unreadable)?;
        let bytes = part.read_within(&mut left).await.map_err(unreadable)?;
        let (name, file_name) = (part.name(), part.file_name());
        if name == "filename" || name == "filename[]" {
            if files.len() == EXECUTE_MAX_FILES {
                return Err(ApiError::invalid(
                    "filename",
                    format!("at most {EXECUTE_MAX_FILES} files a call"),
                ));
            }
            // Shown in the report only; a header carries at most 8 KiB of it anyway. A
            // NUL (`filename*=UTF-8''a%00`) can be sent, and is not shown.
            let shown = file_name
                .map(shown_name)
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| format!("file-{}", files.len() + 1));
            files.push((shown, bytes));
        }
    }
    if files.is_empty() {
        return Err(ApiError::validation(vec![
            coffer_model::validation::FieldError::not_null("filename"),
        ]));
    }
    Ok(files)
}
