//! The standalone store's upload address (`coffer dev`, objects in a local directory):
//! it speaks S3's browser-POST protocol and S3's XML errors, so the forms upload
//! credentials sign work with and without S3. Not an API operation, and only `coffer dev`
//! serves it; distributed mode uploads go to S3 itself.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_http::multipart::{MultipartReader, ReadError};
use coffer_uploads::{UploadForm, UploadRefusal};

use crate::object_store::local::{self, PlaceError, Receiving};
use crate::object_store::{LOCAL_BUCKET, ObjectStore};
use crate::state::ReconciliationState;

/// Text fields of an upload form: SPEC.md's are fewer than 12, each well under 8 KiB.
const MAX_FIELDS: usize = 32;
const MAX_FIELD_BYTES: usize = 16 * 1024;
/// An upload that sends nothing for this long is given up, its partial file removed.
const STALL: std::time::Duration = std::time::Duration::from_secs(60);

/// Routes the bucket's POST address.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(&format!("/{LOCAL_BUCKET}"), web::post().to(upload));
}

/// S3's error body, which upload clients read.
fn refused(status: u16, code: &str, message: &str) -> HttpResponse {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    HttpResponse::build(
        actix_web::http::StatusCode::from_u16(status)
            .unwrap_or(actix_web::http::StatusCode::BAD_REQUEST),
    )
    .content_type("application/xml")
    .body(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>{}</Message></Error>",
        escape(code),
        escape(message)
    ))
}

fn refusal(r: &UploadRefusal) -> HttpResponse {
    refused(r.status(), r.code(), &r.to_string())
}

/// Receives one browser-POST upload: text fields first, `file` last (as S3 requires),
/// written aside while counted against the largest file allowed, then checked against the
/// signed policy and placed under its key whole. 204 as S3 answers.
pub(crate) async fn upload(
    state: web::Data<ReconciliationState>,
    req: HttpRequest,
    payload: web::Payload,
) -> HttpResponse {
    let Some(ObjectStore::Local { root, signer }) = state.objects.as_ref() else {
        return refused(
            404,
            "NoSuchBucket",
            "this Coffer keeps no local upload store",
        );
    };
    let base = ObjectStore::bucket_dir(root, signer);
    let mut parts = MultipartReader::new(req.headers(), payload).stalling_after(STALL);
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut received: Option<Receiving> = None;
    let max = state.limits.max_bytes as u64;
    while let Some(part) = parts.next_part().await {
        let Ok(mut field) = part else {
            return refused(
                400,
                "MalformedPOSTRequest",
                "the body is not readable multipart/form-data",
            );
        };
        let name = field.name().to_owned();
        if name.eq_ignore_ascii_case("file") {
            // Everything but the size is known before the file: an upload the policy refuses
            // is turned away before a byte of it is written.
            let before = UploadForm {
                fields: fields.clone(),
                file_len: 1,
            };
            match coffer_uploads::verify(signer, &before, state.clock.now()) {
                Ok(_)
                | Err(
                    UploadRefusal::EntityTooSmall { .. } | UploadRefusal::EntityTooLarge { .. },
                ) => {}
                Err(r) => return refusal(&r),
            }
            // A key the disk cannot keep is refused before the file is received.
            if let Some((_, key)) = fields
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case("key"))
                && let Err(e) = local::keepable(key)
            {
                return placing_refused(e);
            }
            let mut file = match Receiving::start(root).await {
                Ok(f) => f,
                Err(e) => {
                    tracing::error!(error = %e, "the upload directory cannot be written");
                    return refused(500, "InternalError", "the upload could not be stored");
                }
            };
            loop {
                let chunk = match field.chunk().await {
                    None => break,
                    Some(Ok(chunk)) => chunk,
                    Some(Err(ReadError::Stalled)) => {
                        file.abandon().await;
                        return refused(400, "RequestTimeout", "the upload stalled");
                    }
                    Some(Err(_)) => {
                        file.abandon().await;
                        return refused(400, "IncompleteBody", "the file part ended early");
                    }
                };
                let size = file.written + chunk.len() as u64;
                if size > max {
                    file.abandon().await;
                    return refusal(&UploadRefusal::EntityTooLarge { size, max });
                }
                if let Err(e) = file.write(&chunk).await {
                    tracing::error!(error = %e, "writing an upload failed");
                    file.abandon().await;
                    return refused(500, "InternalError", "the upload could not be stored");
                }
            }
            received = Some(file);
            // S3 ignores whatever follows the file.
            break;
        }
        let mut value = Vec::new();
        while let Some(chunk) = field.chunk().await {
            let Ok(chunk) = chunk else {
                return refused(400, "IncompleteBody", "a form field ended early or stalled");
            };
            if value.len() + chunk.len() > MAX_FIELD_BYTES || fields.len() == MAX_FIELDS {
                return refused(
                    400,
                    "MaxPostPreDataLengthExceeded",
                    "the form fields before the file are too large",
                );
            }
            value.extend_from_slice(&chunk);
        }
        let Ok(value) = String::from_utf8(value) else {
            return refused(400, "InvalidArgument", "a form field is not UTF-8 text");
        };
        fields.push((name, value));
    }
    let Some(file) = received else {
        return refused(400, "InvalidArgument", "the form has no file field");
    };
    let form = UploadForm {
        fields,
        file_len: file.written,
    };
    let accepted = match coffer_uploads::verify(signer, &form, state.clock.now()) {
        Ok(accepted) => accepted,
        Err(r) => {
            file.abandon().await;
            return refusal(&r);
        }
    };
    match file.finish(&base, &accepted.key).await {
        Ok(()) => HttpResponse::NoContent().finish(),
        Err(e) => placing_refused(e),
    }
}

/// The answer to a file that could not be placed under its key.
fn placing_refused(e: PlaceError) -> HttpResponse {
    match e {
        PlaceError::Clash => refused(400, "InvalidArgument", &e.to_string()),
        PlaceError::SegmentTooLong => refused(400, "KeyTooLongError", &e.to_string()),
        PlaceError::Io(e) => {
            tracing::error!(error = %e, "placing an upload failed");
            refused(500, "InternalError", "the upload could not be stored")
        }
    }
}
