use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpResponse};
use coffer_error::{ApiError, Shape};

use crate::RequestId;

/// Writes every error response in the SPEC.md shape of the operation that produced it
/// (a `Shape` registered as route app data, B when none is), with the request id.
///
/// Errors raised by the framework itself (no route, wrong method, an extractor Coffer did
/// not wrap) arrive as plain text; they are rewritten too, so a client never sees
/// anything but JSON. Pages for people (identity's login page) answer errors in HTML of
/// their own, and the standalone upload store S3's XML errors, which upload clients read;
/// both are kept.
pub(crate) async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let res = next.call(req).await?;
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return Ok(res.map_into_boxed_body());
    }
    let from_route = res.response().extensions().get::<ApiError>().cloned();
    let error = match from_route {
        Some(error) => error,
        None if is_json(&res) || is_html(&res) || is_xml(&res) => {
            return Ok(res.map_into_boxed_body());
        }
        None => {
            if let Some(cause) = res.response().error() {
                tracing::debug!(error = %cause, "framework error rewritten");
            }
            ApiError::from_status(status)
        }
    };
    let shape = res
        .request()
        .app_data::<Shape>()
        .copied()
        .unwrap_or_default();
    let request_id = res
        .request()
        .extensions()
        .get::<RequestId>()
        .map(|id| id.0.clone())
        .unwrap_or_default();
    let body = error.shape_for(shape).render(&error, &request_id);

    let (req, old) = res.into_parts();
    let mut new = HttpResponse::build(error.status());
    for (name, value) in old.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            new.append_header((name.clone(), value.clone()));
        }
    }
    if error.status().as_u16() == 401 && !old.headers().contains_key(header::WWW_AUTHENTICATE) {
        new.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
    }
    Ok(ServiceResponse::new(req, new.json(body)))
}

fn is_json<B>(res: &ServiceResponse<B>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"))
}

fn is_xml<B>(res: &ServiceResponse<B>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/xml"))
}

fn is_html<B>(res: &ServiceResponse<B>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/html"))
}
