//! The request head's limits, the same as the gateway's (deploy/gateway/nginx.conf: four
//! 8 KiB buffers): a header line over 8 KiB, or a head over 32 KiB, is answered 431 in the
//! error shape. Without this, `coffer dev` (which has no gateway in front) would accept
//! heads the distributed deployment refuses, and past the HTTP layer's own buffer (128 KiB,
//! or more than 96 headers) answer 431 with an empty body before Coffer code runs.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, ResponseError};
use coffer_error::ApiError;

/// One header line, name and value, as nginx's `large_client_header_buffers` size.
pub const MAX_HEADER_LINE: usize = 8 * 1024;
/// The whole head: the request line and every header line.
pub const MAX_HEAD: usize = 32 * 1024;

/// Whether the request line and header lines, as sent (with separators and line ends),
/// fit the limits.
fn fits(req: &ServiceRequest) -> bool {
    let target = req.uri().path_and_query().map_or(1, |p| p.as_str().len());
    // "METHOD target HTTP/1.1\r\n"
    let request_line = req.method().as_str().len() + target + 12;
    let mut total = request_line;
    for (name, value) in req.headers() {
        // "name: value\r\n"
        let line = name.as_str().len() + value.len() + 4;
        if line > MAX_HEADER_LINE {
            return false;
        }
        total += line;
    }
    request_line <= MAX_HEADER_LINE && total <= MAX_HEAD
}

pub(crate) async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    if !fits(&req) {
        let response = ApiError::headers_too_large().error_response();
        return Ok(req.into_response(response).map_into_right_body());
    }
    Ok(next.call(req).await?.map_into_left_body())
}
